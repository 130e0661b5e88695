import type {
  PartyIdentifiers,
  VerificationCompletedData,
  VerificationRequestedData,
} from '@vop/contracts';
import { matchPartyIdentification, type NameMatcher } from '@vop/name-matching';
import type { MatchingAccount } from './account-projection.js';

/** Identifier check (LEI, other schemes): NOAP when the account holds nothing comparable. */
export function matchIdentification(
  given: PartyIdentifiers,
  held: PartyIdentifiers | undefined,
): 'MTCH' | 'NMTC' | 'NOAP' {
  return matchPartyIdentification(given, held ?? {});
}

/** Pure: the outcome for one request against the account found for its IBAN (if any). */
export function decideOutcome(
  request: VerificationRequestedData,
  account: MatchingAccount | undefined,
  matcher: NameMatcher,
  now: Date,
): VerificationCompletedData {
  const base = {
    verificationId: request.verificationId,
    family: request.family,
    completedAt: now.toISOString(),
  };
  if (!account || account.status !== 'active') {
    return {
      ...base,
      outcome: 'NOAP',
      score: 0,
      reasons: [account ? 'ACCOUNT_NOT_ACTIVE' : 'ACCOUNT_NOT_FOUND'],
      ...(request.identification && { idMatch: 'NOAP' as const }),
    };
  }
  const idMatch = request.identification && {
    idMatch: matchIdentification(request.identification, account.identifiers),
  };
  // The EPC path may ask by identification alone: then there is no name to match.
  if (request.name === undefined)
    return { ...base, outcome: 'NOAP', score: 0, reasons: ['NAME_NOT_PROVIDED'], ...idMatch };
  const result = matcher.match(request.name, {
    ...(account.holderType && { holderType: account.holderType }),
    names: [account.name, ...account.alternateNames],
  });
  return {
    ...base,
    outcome: result.outcome,
    score: result.score,
    ...(result.matchedName !== undefined &&
      result.outcome !== 'NMTC' && { matchedName: result.matchedName }),
    reasons: result.reasons,
    ...idMatch,
  };
}
