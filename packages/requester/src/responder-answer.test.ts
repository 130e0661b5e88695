import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exchangeOutcome } from './responder-answer.js';

const check = {
  iban: 'DE89370400440532013000',
  name: 'Erika Mustermann',
  partyAgentBic: 'COBADEFFXXX',
  requestingAgentBic: 'VOPBDEFFXXX',
};
const problem = (code: string, detail?: string) =>
  JSON.stringify({ type: 'urn:x', code, ...(detail !== undefined && { detail }) });

describe("what a responder's HTTP answer means", () => {
  it('given 200 with a valid body, then an answer', () => {
    assert.deepEqual(exchangeOutcome(200, '{"partyNameMatch":"NMTC"}', check), {
      kind: 'answered',
      answer: { partyNameMatch: 'NMTC' },
    });
  });

  it('given a 5xx or 429, then a responder error that says it is down', () => {
    for (const status of [500, 503, 429])
      assert.deepEqual(exchangeOutcome(status, '', check), {
        kind: 'failed',
        reason: 'RESPONDER_ERROR',
        detail: `status ${status}`,
        responderDown: true,
      });
  });

  it('given a 400 about our request, then our bug: not down, its code named, its text never', () => {
    const outcome = exchangeOutcome(400, problem('FORMAT_ERROR', 'name Erika Mustermann'), check);

    assert.deepEqual(outcome, {
      kind: 'failed',
      reason: 'RESPONDER_ERROR',
      detail: 'status 400 FORMAT_ERROR',
      responderDown: false,
      ourRequestRefused: true,
    });
  });

  it('given 200 that is not JSON, or a body over the limit, then a failure', () => {
    assert.equal(exchangeOutcome(200, '<html>', check).kind, 'failed');
    const oversize = exchangeOutcome(200, undefined, check);
    assert.equal(oversize.kind === 'failed' && oversize.reason, 'RESPONDER_INVALID_ANSWER');
  });
});
