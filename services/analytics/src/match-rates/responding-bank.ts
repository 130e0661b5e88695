import type { VerificationCompletedData } from '@vop/contracts';

/** The `bank` of verifications decided against our own accounts (no `routedTo`, events before issue 40 too). */
export const OWN_BANK = 'own';

/** The `bank` of a responder failure whose event names no bank (the payee's BIC could not be found). */
export const UNKNOWN_BANK = 'unknown';

const RESPONDER_FAILURE_PREFIX = 'RESPONDER_';

/**
 * Why the payee's bank could not answer a check sent to it: the RESPONDER_* reason of its NOAP, else
 * null (an answer, a NOAP the bank gave included). A bank's match rate counts its answers only.
 */
export function responderFailureOf(completed: VerificationCompletedData): string | null {
  if (completed.outcome !== 'NOAP') return null;
  return completed.reasons.find((reason) => reason.startsWith(RESPONDER_FAILURE_PREFIX)) ?? null;
}

/** SQL over the activity table `v`: the key a verification counts under in `byRespondingBank`. */
export function respondingBankSql(): string {
  return `coalesce(v.responding_bic,
            CASE WHEN v.responder_failure IS NULL THEN '${OWN_BANK}' ELSE '${UNKNOWN_BANK}' END)`;
}
