/** X.520 organizationIdentifier: carries the PSD2 authorisation number (PSDDE-BAFIN-123456) in eIDAS certificates. */
export const ORGANIZATION_IDENTIFIER_OID = '2.5.4.97';

type JsonName = Array<Record<string, string[]>>;

export function subjectName(commonName: string, organizationIdentifier?: string): JsonName {
  if (commonName.trim() === '') {
    throw new RangeError('commonName must not be empty');
  }
  const name: JsonName = [{ CN: [commonName] }];
  if (organizationIdentifier !== undefined) {
    if (organizationIdentifier.trim() === '') {
      throw new RangeError('organizationIdentifier must not be empty when given');
    }
    name.push({ [ORGANIZATION_IDENTIFIER_OID]: [organizationIdentifier] });
  }
  return name;
}
