import { createHash } from 'node:crypto';
import type { VerificationCompletedData } from './events/verifications.js';
import type {
  AccountNumberVerifyResponse,
  CopReasonCode,
  DomesticAccountStatus,
} from './http/account-number.js';
import type { ImmediateVerifyResponse, SimpleVerifyResponse } from './http/immediate.js';
import type { VerificationResult } from './http/request-result.js';
import type { EpcVerifyResponse } from './http/epc.js';
import type { SchemeVerifyResponse } from './http/scheme.js';
import { confidenceWord, noapReasonOf, outcomeTable } from './outcomes.js';

// One renderer per family, from a completion and the outcome table beside this file (outcomes.ts).

/** Scheme family: matchedName on MTCH and CMTC, idMatch only when identification was sent. */
export function renderSchemeResponse(completed: VerificationCompletedData): SchemeVerifyResponse {
  const disclose = completed.outcome === 'MTCH' || completed.outcome === 'CMTC';
  return {
    partyNameMatch: completed.outcome,
    ...(disclose && completed.matchedName !== undefined && { matchedName: completed.matchedName }),
    ...(completed.idMatch !== undefined && { idMatch: completed.idMatch }),
  };
}

/**
 * EPC inter-PSP family: partyNameMatch when a name was sent, partyIdMatch (NOAP when nothing could be
 * compared) when an identification was sent, the name disclosed (Max140) only on a close match.
 */
export function renderEpcResponse(
  completed: VerificationCompletedData,
  nameProvided: boolean,
  identificationProvided = completed.idMatch !== undefined,
): EpcVerifyResponse {
  return {
    ...(nameProvided && { partyNameMatch: completed.outcome }),
    ...(nameProvided &&
      completed.outcome === 'CMTC' &&
      completed.matchedName !== undefined && { matchedName: completed.matchedName.slice(0, 140) }),
    ...(identificationProvided && { partyIdMatch: completed.idMatch ?? 'NOAP' }),
  };
}

const ID_MATCH_CODES = { MTCH: 'MATCH', NMTC: 'NO_MATCH', NOAP: 'NOT_APPLICABLE' } as const;

export function renderRequestResultResponse(
  completed: VerificationCompletedData,
  requestedAt: string,
): VerificationResult {
  const disclose = completed.outcome === 'MTCH' || completed.outcome === 'CMTC';
  return {
    response_id: responseIdFor(completed.verificationId),
    request_id: completed.verificationId,
    name_match_code: outcomeTable[completed.outcome].requestResult,
    id_match_code: ID_MATCH_CODES[completed.idMatch ?? 'NOAP'],
    ...(disclose && completed.matchedName !== undefined && { matched_name: completed.matchedName }),
    ...(completed.outcome === 'NOAP' && { reason: noapReasonOf(completed.reasons) }),
    reasons: completed.reasons,
    ...(completed.routedTo && { routed_to: completed.routedTo }),
    response_timestamp: completed.completedAt,
    created_at: requestedAt,
  };
}

/** Family C, production form: `match` only on MTCH; the held name only on a close match. */
export function renderImmediateResponse(
  completed: VerificationCompletedData,
): ImmediateVerifyResponse {
  return {
    match: outcomeTable[completed.outcome].immediate,
    confidence_score: completed.score,
    verification_id: `vrf_${completed.verificationId}`,
    verified_at: completed.completedAt,
    ...(completed.outcome === 'CMTC' &&
      completed.matchedName !== undefined && { suggested_name: completed.matchedName }),
    ...(completed.outcome === 'NOAP' && { reason: noapReasonOf(completed.reasons) }),
  };
}

/** Family C, simple form: the outcome word and the confidence word. */
export function renderSimpleResponse(completed: VerificationCompletedData): SimpleVerifyResponse {
  return {
    result: outcomeTable[completed.outcome].simple,
    confidence: confidenceWord(completed.score),
    ...(completed.outcome === 'CMTC' &&
      completed.matchedName !== undefined && { suggested_name: completed.matchedName }),
    ...(completed.outcome === 'NOAP' && { reason: noapReasonOf(completed.reasons) }),
  };
}

/** What family D knows of the account it looked up by sort code and account number. */
export interface DomesticAccountView {
  status: 'active' | 'closed' | 'blocked';
  holderType?: 'person' | 'organisation';
}

const DOMESTIC_STATUS = { active: 'ACTIVE', closed: 'CLOSED', blocked: 'BLOCKED' } as const;

/** Family D: match word, suggested name on a close match, integer confidence, status and CoP reason code. */
export function renderAccountNumberResponse(
  completed: VerificationCompletedData,
  account: DomesticAccountView | undefined,
  accountType: 'personal' | 'business' | undefined,
): AccountNumberVerifyResponse {
  const status: DomesticAccountStatus = account ? DOMESTIC_STATUS[account.status] : 'NOT_FOUND';
  const reasonCode = copReasonCode(completed, account, accountType);
  return {
    match: outcomeTable[completed.outcome].accountNumber,
    ...(completed.outcome === 'CMTC' &&
      completed.matchedName !== undefined && { suggestedName: completed.matchedName }),
    confidence: Math.round(completed.score * 100),
    status,
    ...(reasonCode !== undefined && { reasonCode }),
    verificationId: completed.verificationId,
  };
}

function copReasonCode(
  completed: VerificationCompletedData,
  account: DomesticAccountView | undefined,
  accountType: 'personal' | 'business' | undefined,
): CopReasonCode | undefined {
  if (!account || account.status === 'closed') return 'AC01';
  if (account.status === 'blocked') return 'ACNS';
  const actual =
    account.holderType === undefined
      ? undefined
      : account.holderType === 'organisation'
        ? 'business'
        : 'personal';
  const typeDiffers = accountType !== undefined && actual !== undefined && accountType !== actual;
  switch (completed.outcome) {
    case 'MTCH':
      return typeDiffers ? (actual === 'business' ? 'BANM' : 'PANM') : undefined;
    case 'CMTC':
      return typeDiffers ? (actual === 'business' ? 'BAMM' : 'PAMM') : 'MBAM';
    case 'NMTC':
      return 'ANNM';
    case 'NOAP':
      return 'AC01';
  }
}

/** A name-based UUID (version 5 layout) derived from the request id: every read returns the same response_id. */
export function responseIdFor(requestId: string): string {
  const bytes = createHash('sha1').update(`vop-response:${requestId}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
