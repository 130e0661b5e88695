import type { PartyIdentifiers, VerificationCompletedData, VerificationRequestedData } from '@vop/contracts';
import type { MatchingAccount } from '../accounts/projection.js';
import type { NameMatcher } from './matcher.js';

/** Identifier check: NOAP when the account holds nothing comparable. */
export function matchIdentification(given: PartyIdentifiers, held: PartyIdentifiers | undefined): 'MTCH' | 'NMTC' | 'NOAP' {
  const comparable: boolean[] = [];
  if (given.lei !== undefined && held?.lei !== undefined) comparable.push(given.lei.toUpperCase() === held.lei.toUpperCase());
  for (const other of given.others ?? []) {
    const sameScheme = (held?.others ?? []).filter((candidate) => candidate.scheme === other.scheme);
    if (sameScheme.length > 0) comparable.push(sameScheme.some((candidate) => candidate.id === other.id));
  }
  if (comparable.length === 0) return 'NOAP';
  return comparable.every(Boolean) ? 'MTCH' : 'NMTC';
}

/** Pure: the outcome for one request against the account found for its IBAN (if any). */
export function decideVerification(
  request: VerificationRequestedData,
  account: MatchingAccount | undefined,
  matcher: NameMatcher,
  now: Date,
): VerificationCompletedData {
  const base = { verificationId: request.verificationId, family: request.family, completedAt: now.toISOString() };
  if (!account || account.status !== 'active') {
    return {
      ...base,
      outcome: 'NOAP',
      score: 0,
      reasons: [account ? 'ACCOUNT_NOT_ACTIVE' : 'ACCOUNT_NOT_FOUND'],
      ...(request.identification && { idMatch: 'NOAP' as const }),
    };
  }
  const result = matcher.match(request.name, {
    ...(account.holderType && { holderType: account.holderType }),
    names: [account.name, ...account.alternateNames],
  });
  return {
    ...base,
    outcome: result.outcome,
    score: result.score,
    ...(result.matchedName !== undefined && result.outcome !== 'NMTC' && { matchedName: result.matchedName }),
    reasons: result.reasons,
    ...(request.identification && { idMatch: matchIdentification(request.identification, account.identifiers) }),
  };
}
