import type { Agent } from 'undici';
import type { Endpoint } from './endpoint-order.js';
import { exchangeOutcome, MAX_ANSWER_BYTES, type ExchangeOutcome } from './responder-answer.js';
import { transportFailure } from './transport-failure.js';
import type { PayeeCheck } from './types.js';
import { verificationRequestBody, verificationRequestHeaders } from './verification-request.js';

export interface CallContext {
  agent: Agent;
  now: () => Date;
  /** One X-Request-ID for the check, whichever endpoint receives it. */
  requestId: string;
}

/**
 * Asks the responder's endpoints in priority order. The next one is tried only when the connection
 * to this one failed before the request could leave (refused, DNS, TLS handshake): after a timeout,
 * a reset or any status the responder may have received the check, and a second call would double it.
 */
export async function callEndpoints(
  context: CallContext,
  endpoints: Endpoint[],
  check: PayeeCheck,
  signals: { deadline: AbortSignal; signal: AbortSignal },
): Promise<ExchangeOutcome> {
  const body = JSON.stringify(verificationRequestBody(check));
  const notes: string[] = [];
  for (const [index, endpoint] of endpoints.entries()) {
    try {
      const outcome = await exchange(context, endpoint, body, check, signals.signal);
      if (outcome.kind === 'answered') return outcome;
      const detail = [...notes, `endpoint ${endpoint.priority}: ${outcome.detail}`].join('; ');
      return { ...outcome, detail };
    } catch (error) {
      const failure = transportFailure(error, signals.signal.aborted);
      notes.push(`endpoint ${endpoint.priority}: ${failure.code}`);
      if (failure.neverSent && index < endpoints.length - 1) continue;
      return {
        kind: 'failed',
        reason: failure.reason,
        detail: notes.join('; '),
        // A caller that gave up says nothing about the responder; its own deadline does.
        responderDown: !signals.signal.aborted || signals.deadline.aborted,
      };
    }
  }
  return {
    kind: 'failed',
    reason: 'RESPONDER_UNAVAILABLE',
    detail: 'no endpoint',
    responderDown: false,
  };
}

/** One POST and its answer, read up to MAX_ANSWER_BYTES. */
async function exchange(
  context: CallContext,
  endpoint: Endpoint,
  body: string,
  check: PayeeCheck,
  signal: AbortSignal,
): Promise<ExchangeOutcome> {
  const response = await context.agent.request({
    origin: endpoint.url.origin,
    path: `${endpoint.url.pathname}${endpoint.url.search}`,
    method: 'POST',
    headers: verificationRequestHeaders(context.requestId, context.now()),
    body,
    signal,
  });
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > MAX_ANSWER_BYTES) {
      response.body.destroy();
      return exchangeOutcome(response.statusCode, undefined, check);
    }
    chunks.push(chunk);
  }
  return exchangeOutcome(response.statusCode, Buffer.concat(chunks).toString('utf8'), check);
}
