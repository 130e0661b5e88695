/** Organisation identifiers of a party (EPC VOP party.identification) or of an account holder. */
export interface PartyIdentification {
  lei?: string;
  others?: { scheme: string; id: string }[];
}

export type PartyIdMatch = 'MTCH' | 'NMTC' | 'NOAP';

const normaliseId = (id: string): string => id.replace(/[\s.\-/]/g, '').toUpperCase();
const normaliseScheme = (scheme: string): string => scheme.trim().toUpperCase();

/**
 * Checks the identifiers given in a request against the account's. Only identifiers of a kind the
 * account holds are compared (LEI with LEI, each scheme with the same scheme): any of them differing is
 * NMTC, otherwise one agreeing is MTCH, and NOAP when the account holds no identifier of any given kind.
 */
export function matchPartyIdentification(
  given: PartyIdentification,
  account: PartyIdentification,
): PartyIdMatch {
  let compared = 0;
  let agreed = 0;
  if (given.lei?.trim() && account.lei?.trim()) {
    compared++;
    if (normaliseId(given.lei) === normaliseId(account.lei)) agreed++;
  }
  for (const identifier of given.others ?? []) {
    const scheme = normaliseScheme(identifier.scheme);
    const held = (account.others ?? []).filter((o) => normaliseScheme(o.scheme) === scheme);
    if (held.length === 0 || !identifier.id.trim()) continue;
    compared++;
    if (held.some((o) => normaliseId(o.id) === normaliseId(identifier.id))) agreed++;
  }
  if (compared === 0) return 'NOAP';
  return agreed === compared ? 'MTCH' : 'NMTC';
}
