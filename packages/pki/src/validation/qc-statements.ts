import * as asn1js from 'asn1js';

/** id-pe-qcStatements (RFC 3739). */
export const QC_STATEMENTS_OID = '1.3.6.1.5.5.7.1.3';
/** id-etsi-qcs-QcCompliance (ETSI EN 319 412-5): the certificate is an EU qualified certificate. */
export const QC_COMPLIANCE_OID = '0.4.0.1862.1.1';
/** id-etsi-psd2-qcStatement (ETSI TS 119 495). */
export const PSD2_QC_STATEMENT_OID = '0.4.0.19495.2';

export type Psd2Role = 'PSP_AS' | 'PSP_PI' | 'PSP_AI' | 'PSP_IC';

export const PSD2_ROLE_OIDS: Record<Psd2Role, string> = {
  PSP_AS: '0.4.0.19495.1.1',
  PSP_PI: '0.4.0.19495.1.2',
  PSP_AI: '0.4.0.19495.1.3',
  PSP_IC: '0.4.0.19495.1.4',
};

export interface QcStatementsOptions {
  /** Adds the QcCompliance statement. */
  qualified?: boolean;
  psd2?: { roles: Psd2Role[]; ncaName: string; ncaId: string };
}

export interface QcStatementsSummary {
  qualified: boolean;
  psd2Roles: string[];
}

/** DER of QCStatements ::= SEQUENCE OF QCStatement, for the certificate extension's value. */
export function encodeQcStatements(options: QcStatementsOptions): ArrayBuffer {
  const statements: asn1js.Sequence[] = [];
  if (options.qualified) {
    statements.push(
      new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: QC_COMPLIANCE_OID })] }),
    );
  }
  if (options.psd2) {
    const roles = options.psd2.roles.map(
      (role) =>
        new asn1js.Sequence({
          value: [
            new asn1js.ObjectIdentifier({ value: PSD2_ROLE_OIDS[role] }),
            new asn1js.Utf8String({ value: role }),
          ],
        }),
    );
    statements.push(
      new asn1js.Sequence({
        value: [
          new asn1js.ObjectIdentifier({ value: PSD2_QC_STATEMENT_OID }),
          new asn1js.Sequence({
            value: [
              new asn1js.Sequence({ value: roles }),
              new asn1js.Utf8String({ value: options.psd2.ncaName }),
              new asn1js.Utf8String({ value: options.psd2.ncaId }),
            ],
          }),
        ],
      }),
    );
  }
  return new asn1js.Sequence({ value: statements }).toBER();
}

/**
 * Best-effort reading of the qcStatements extension value: statements that do not have the expected shape are
 * ignored rather than failing the certificate, since the markers only add information about the participant.
 */
export function parseQcStatements(extensionValue: ArrayBuffer): QcStatementsSummary {
  const summary: QcStatementsSummary = { qualified: false, psd2Roles: [] };
  const decoded = asn1js.fromBER(extensionValue);
  if (decoded.offset === -1 || !(decoded.result instanceof asn1js.Sequence)) return summary;
  for (const statement of decoded.result.valueBlock.value) {
    if (!(statement instanceof asn1js.Sequence)) continue;
    const [statementId, statementInfo] = statement.valueBlock.value;
    if (!(statementId instanceof asn1js.ObjectIdentifier)) continue;
    const oid = statementId.valueBlock.toString();
    if (oid === QC_COMPLIANCE_OID) summary.qualified = true;
    if (oid === PSD2_QC_STATEMENT_OID && statementInfo instanceof asn1js.Sequence) {
      summary.psd2Roles.push(...psd2RolesOf(statementInfo));
    }
  }
  return summary;
}

function psd2RolesOf(psd2QcType: asn1js.Sequence): string[] {
  const rolesOfPsp = psd2QcType.valueBlock.value[0];
  if (!(rolesOfPsp instanceof asn1js.Sequence)) return [];
  const roles: string[] = [];
  for (const role of rolesOfPsp.valueBlock.value) {
    if (!(role instanceof asn1js.Sequence)) continue;
    const [roleOid, roleName] = role.valueBlock.value;
    if (roleName instanceof asn1js.Utf8String) roles.push(roleName.valueBlock.value);
    else if (roleOid instanceof asn1js.ObjectIdentifier) {
      const known = Object.entries(PSD2_ROLE_OIDS).find(
        ([, oid]) => oid === roleOid.valueBlock.toString(),
      );
      if (known) roles.push(known[0]);
    }
  }
  return roles;
}
