import { EpcError, type EpcVerifyResponse } from '@vop/contracts';
import { checkAnswer } from './answer-contract.js';
import type { PayeeCheck, RequesterFailureReason } from './types.js';

export type ExchangeOutcome =
  | { kind: 'answered'; answer: EpcVerifyResponse }
  | {
      kind: 'failed';
      reason: RequesterFailureReason;
      detail: string;
      /** The failure says the responder is down (counts for its breaker), not that we erred. */
      responderDown: boolean;
      /** The responder refused our request: a bug on our side, for the logs. */
      ourRequestRefused?: boolean;
    };

/** An answer is a few hundred bytes; more is not a VoP answer, and is not read on. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * What a responder's HTTP answer means: 200 with a valid body is an answer, anything else a failure
 * with the status and the VerificationOfPayeeError code (never its text, which may echo the name).
 */
export function exchangeOutcome(
  status: number,
  text: string | undefined,
  check: PayeeCheck,
): ExchangeOutcome {
  if (text === undefined)
    return failed(
      'RESPONDER_INVALID_ANSWER',
      `status ${status}: answer over ${MAX_ANSWER_BYTES} bytes`,
      false,
    );
  const body = parsedJson(text);
  if (status === 200) {
    if (body === undefined) return failed('RESPONDER_ERROR', 'status 200: not JSON', false);
    const verdict = checkAnswer(body, check);
    return verdict.valid
      ? { kind: 'answered', answer: verdict.answer }
      : failed('RESPONDER_INVALID_ANSWER', `status 200: ${verdict.problem}`, false);
  }
  const error = EpcError.safeParse(body);
  const detail = `status ${status}${error.success ? ` ${error.data.code}` : ''}`;
  // 429 is a responder over its load, not a bad request of ours.
  if (status >= 500 || status === 429) return failed('RESPONDER_ERROR', detail, true);
  if (status >= 400 && status < 500)
    return { ...failed('RESPONDER_ERROR', detail, false), ourRequestRefused: true };
  return failed('RESPONDER_ERROR', detail, false);
}

type Failed = Extract<ExchangeOutcome, { kind: 'failed' }>;

function failed(reason: RequesterFailureReason, detail: string, responderDown: boolean): Failed {
  return { kind: 'failed', reason, detail, responderDown };
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
