import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER as PARTICIPANT } from '@vop/pki';
import { eventually, germanIban, type JsonResponse } from '@vop/testing';
import {
  accountsKnownToDeciders,
  runEmbedded,
  schemeRequest,
  type RunningEmbedded,
} from './fixtures.js';

/**
 * Issue 39, item 6: a participant probed a test deployment at ~51,000 IBANs a minute, telling held
 * accounts (NMTC) from unheld ones (NOAP). Every environment now budgets verifications per
 * participant, and NOAP answers are counted per participant for the probing alert.
 */

/** The participant's count on /metrics, summed over the services that serve it (0 before the first). */
async function counted(running: RunningEmbedded, name: string, channel: string): Promise<number> {
  const text = (await running.client.get('/metrics')).text;
  return text
    .split('\n')
    .filter(
      (line) =>
        line.startsWith(`${name}{`) &&
        line.includes(`participant="${PARTICIPANT}"`) &&
        line.includes(`channel="${channel}"`),
    )
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** A 429 with Retry-After in whole seconds; the flat body repeats it as retry_after. */
function assertRefusedWithRetryAfter(response: JsonResponse): number {
  assert.equal(response.status, 429, response.text);
  const retryAfter = Number(response.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${retryAfter}`);
  return retryAfter;
}

describe('verification budget of a test deployment; NOAP answers counted per participant', () => {
  let running: RunningEmbedded;
  const held = germanIban(930_001);
  before(async () => {
    running = await runEmbedded({ env: { VOP_TEST_RATE_LIMITS: '{"default":4}' } });
    const created = await running.admin.post('/accounts', { iban: held, name: 'Erika Mustermann' });
    assert.equal(created.status, 201, created.text);
    await accountsKnownToDeciders(running, [held]);
  });
  after(() => running.stop());

  it('counts a NOAP for the participant, an NMTC not; the fifth check of the minute is refused 429', async () => {
    const unheld = schemeRequest('Erika Mustermann', germanIban(930_002));
    const first = await running.client.post('/vop/verify', unheld);
    assert.equal(first.body.partyNameMatch, 'NOAP', first.text);
    assert.equal(await counted(running, 'verification_noap_total', 'single'), 1);
    assert.equal(await counted(running, 'verification_answers_total', 'single'), 1);

    const other = await running.client.post('/vop/verify', schemeRequest('Johann Beispiel', held));
    assert.equal(other.body.partyNameMatch, 'NMTC', other.text);
    assert.equal(await counted(running, 'verification_noap_total', 'single'), 1);
    assert.equal(await counted(running, 'verification_answers_total', 'single'), 2);

    for (let check = 3; check <= 4; check++)
      assert.equal((await running.client.post('/vop/verify', unheld)).status, 200);
    // The scheme family's format: VOP_005 BUSINESS_ERROR, and Retry-After.
    const refused = await running.client.post('/vop/verify', unheld);
    assertRefusedWithRetryAfter(refused);
    assert.equal(refused.body.error.code, 'VOP_005');
    assert.equal(refused.body.error.category, 'BUSINESS_ERROR');
    // The same participant's budget on a flat-format family: retry_after in the body too.
    const flat = await running.client.get(`/verify/${randomUUID()}`);
    const retryAfter = assertRefusedWithRetryAfter(flat);
    assert.equal(flat.body.error, 'RATE_LIMIT_EXCEEDED');
    assert.equal(flat.body.retry_after, retryAfter);
    // Refused checks are not decided, so they count nothing.
    assert.equal(await counted(running, 'verification_answers_total', 'single'), 4);
  });
});

describe('batch entry budget of a test deployment; batch NOAP counted per participant', () => {
  let running: RunningEmbedded;
  before(async () => {
    // 3 requests a minute, so 180 batch entries an hour.
    running = await runEmbedded({ env: { VOP_TEST_RATE_LIMITS: '{"default":3}' } });
  });
  after(() => running.stop());

  it('counts NOAP entries of both forms on the batch channel, and refuses entries over the hour budget', async () => {
    const unheld = Array.from({ length: 100 }, (_, index) => ({
      id: `probe-${index}`,
      iban: germanIban(931_000 + index),
      name: 'Erika Mustermann',
    }));
    const accepted = await running.client.post('/api/v1/batch', {
      batchId: 'probe-1',
      verifications: unheld,
    });
    assert.equal(accepted.status, 202, accepted.text);
    await eventually(
      async () =>
        (await counted(running, 'verification_noap_total', 'batch')) === 100 ? true : undefined,
      { what: 'the batch entries counted as NOAP' },
    );
    // Form 1: accounts the bank does not hold are judged NOAP at submission, without matching.
    const judged = await running.client.post('/verify/batch', {
      accounts: [
        { accountNumber: '12345678', sortCode: '12-34-56', accountName: 'Jane Doe' },
        { accountNumber: '87654321', sortCode: '654321', accountName: 'John Doe' },
      ],
    });
    assert.equal(judged.status, 202, judged.text);
    assert.equal(await counted(running, 'verification_noap_total', 'batch'), 102);
    assert.equal(await counted(running, 'verification_noap_total', 'single'), 0);

    // 102 of 180 drawn: 100 more are refused whole, in the flat format, and nothing is drawn.
    const refused = await running.client.post('/api/v1/batch', {
      batchId: 'probe-2',
      verifications: unheld.map((entry) => ({ ...entry, id: `again-${entry.id}` })),
    });
    const retryAfter = assertRefusedWithRetryAfter(refused);
    assert.equal(refused.body.error, 'RATE_LIMIT_EXCEEDED');
    assert.equal(refused.body.retry_after, retryAfter);
    assert.ok(refused.body.action, refused.text);
  });
});
