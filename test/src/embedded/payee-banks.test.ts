import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, germanIban, type ScriptedResponder } from '@vop/testing';
import type { RunningEmbedded } from './fixtures.js';
import {
  BANK_B,
  OWN_CODE,
  OWN_HOLDER,
  UNLISTED_CODE,
  bankAWithBankB,
  payeeAtB,
} from './payee-bank-fixture.js';

// The requesting side (issue 40) through the customer families of one embedded deployment (bank A):
// bank B is a scripted EPC responder on 127.0.0.1 that answers, fails and misbehaves on demand.
describe('checks about payees at another bank, asked of that bank (embedded)', () => {
  let running: RunningEmbedded;
  let bankB: ScriptedResponder;
  const ownIban = germanIban(4242, OWN_CODE);

  before(async () => {
    // Each misbehaviour is shown on its own: the breaker would answer the later ones (below, apart).
    ({ running, bankB } = await bankAWithBankB(
      { VOP_REQUESTER_BREAKER_FAILURES: '1000', VOP_REQUESTER_BREAKER_MIN_CALLS: '1000' },
      ownIban,
    ));
  });
  after(async () => {
    await bankB.close();
    await running.stop();
  });

  it('given bank B answers MTCH, when a customer checks a payee whose IBAN has bank B’s code, then bank B is asked over the EPC API and the immediate family answers a match', async () => {
    bankB.clearRequests();
    bankB.script({ kind: 'answer', body: { partyNameMatch: 'MTCH' } });
    const iban = payeeAtB(1);
    const response = await running.client.post('/api/verify', { iban, name: 'Erika Mustermann' });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.match, true);
    const [sent] = bankB.requests();
    assert.equal(bankB.requests().length, 1);
    assert.equal(sent?.method, 'POST');
    assert.match(sent?.path ?? '', /\/payee-verifications$/);
    assert.match(String(sent?.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    assert.ok(sent?.headers['x-request-timestamp']);
    assert.deepEqual(sent?.body, {
      party: { name: 'Erika Mustermann' },
      partyAccount: { iban },
      partyAgent: { financialInstitutionId: { bicfi: BANK_B.bic } },
      requestingAgent: { financialInstitutionId: { bicfi: 'VOPBDEFFXXX' } },
    });
    // Recorded as a verification like any other, readable by id.
    const id = String(response.body.verification_id);
    const read = await running.client.get(`/verify/${id}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.name_match_code, 'MATCH');
    assert.deepEqual(read.body.routed_to, { bic: BANK_B.bic, participant: BANK_B.participant });
  });

  it('given the caller names the payee’s bank, then that BIC routes the check, whatever the IBAN’s bank code', async () => {
    bankB.clearRequests();
    bankB.script({ kind: 'answer', body: { partyNameMatch: 'CMTC', matchedName: 'Erika Muster' } });
    const response = await running.client.post('/api/v1/verify', {
      iban: germanIban(2, UNLISTED_CODE),
      name: 'Erika Mustermann',
      bic: BANK_B.bic,
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.result, 'PARTIAL_MATCH');
    assert.equal(response.body.suggested_name, 'Erika Muster');
    assert.equal(bankB.requests().length, 1);
  });

  it('given a payee at our own bank, then it is decided here and bank B is not asked', async () => {
    bankB.clearRequests();
    const response = await running.client.post('/api/verify', {
      iban: ownIban,
      name: OWN_HOLDER,
    });
    assert.equal(response.body.match, true, response.text);
    assert.equal(bankB.requests().length, 0);
  });

  it('given a request/result check, then POST /verify answers at once and the result is bank B’s answer, read later', async () => {
    bankB.script({ kind: 'answer', body: { partyNameMatch: 'NMTC' } });
    const accepted = await running.client.post('/verify', {
      iban: payeeAtB(3),
      name: 'Max Muster',
    });
    assert.equal(accepted.status, 201, accepted.text);
    const id = String(accepted.body.request_id);
    const result = await eventually(async () => {
      const read = await running.client.get(`/verify/${id}`);
      return read.status === 200 ? read.body : undefined;
    });
    assert.equal(result.name_match_code, 'NO_MATCH');
  });

  /** Each misbehaviour of bank B, and the reason every customer family must show for it. */
  const failures: Array<{
    name: string;
    arrange: () => Promise<void> | void;
    reason: string;
    restore?: () => Promise<void> | void;
  }> = [
    {
      name: 'a 500',
      arrange: () =>
        bankB.script({
          kind: 'status',
          status: 500,
          body: { type: 'urn:x', code: 'FORMAT_ERROR' },
        }),
      reason: 'RESPONDER_ERROR',
    },
    {
      name: 'a body that is not JSON',
      arrange: () => bankB.script({ kind: 'malformed' }),
      reason: 'RESPONDER_ERROR',
    },
    {
      name: 'an answer against the EPC contract',
      arrange: () => bankB.script({ kind: 'answer', body: { partyNameMatch: 'YES' } }),
      reason: 'RESPONDER_INVALID_ANSWER',
    },
    {
      name: 'no answer in time',
      arrange: () => bankB.script({ kind: 'slow', afterMs: 8_000, body: {} }),
      reason: 'RESPONDER_TIMEOUT',
    },
    {
      name: 'a certificate we do not trust',
      arrange: () => bankB.presentForeignCertificate(),
      reason: 'RESPONDER_TLS_FAILURE',
      restore: () => bankB.presentOwnCertificate(),
    },
    {
      name: 'a refused connection',
      arrange: () => bankB.refuseConnections(),
      reason: 'RESPONDER_UNAVAILABLE',
      restore: () => bankB.acceptConnections(),
    },
  ];
  for (const failure of failures)
    it(`given bank B fails with ${failure.name}, then each family ends NOAP with ${failure.reason}, never a plain no-match`, async () => {
      await failure.arrange();
      const immediate = await running.client.post('/api/verify', {
        iban: payeeAtB(10),
        name: 'Erika Mustermann',
      });
      assert.equal(immediate.status, 200, immediate.text);
      assert.equal(immediate.body.match, false);
      assert.equal(immediate.body.reason, failure.reason);
      const simple = await running.client.post('/api/v1/verify', {
        iban: payeeAtB(11),
        name: 'Erika Mustermann',
      });
      assert.equal(simple.body.result, 'ERROR', simple.text);
      assert.equal(simple.body.reason, failure.reason);
      const accepted = await running.client.post('/verify', {
        iban: payeeAtB(12),
        name: 'Erika Mustermann',
      });
      const id = String(accepted.body.request_id);
      const result = await eventually(
        async () => {
          const read = await running.client.get(`/verify/${id}`);
          return read.status === 200 ? read.body : undefined;
        },
        { timeoutMs: 20_000, what: `the result of ${id}` },
      );
      assert.equal(result.status, 'FAILED', JSON.stringify(result));
      assert.equal(result.reason, failure.reason);
      await failure.restore?.();
    });

  it('given a bank code of a routed country that no bank holds, or a BIC no participant holds, then the check ends RESPONDER_UNKNOWN without a call', async () => {
    bankB.clearRequests();
    const unknownCode = await running.client.post('/api/verify', {
      iban: germanIban(20, UNLISTED_CODE),
      name: 'Erika Mustermann',
    });
    assert.equal(unknownCode.body.reason, 'RESPONDER_UNKNOWN', unknownCode.text);
    const unknownBic = await running.client.post('/api/v1/verify', {
      iban: payeeAtB(21),
      name: 'Erika Mustermann',
      bic: 'BNPAFRPPXXX',
    });
    assert.equal(unknownBic.body.reason, 'RESPONDER_UNKNOWN', unknownBic.text);
    assert.equal(bankB.requests().length, 0);
  });

  it('given a batch with payees at bank B and at our bank, then bank B’s entries carry its answers and ours are decided here', async () => {
    bankB.script({ kind: 'answer', body: { partyNameMatch: 'MTCH' } });
    const submitted = await running.client.post('/api/v1/batch', {
      batchId: 'payee-banks-1',
      verifications: [
        { id: 'b1', iban: payeeAtB(31), name: 'Erika Mustermann' },
        { id: 'b2', iban: payeeAtB(32), name: 'Max Mustermann' },
        { id: 'own', iban: ownIban, name: OWN_HOLDER },
        { id: 'unknown', iban: germanIban(33, UNLISTED_CODE), name: 'Max Mustermann' },
      ],
    });
    assert.ok(submitted.status < 300, submitted.text);
    const results = await eventually(
      async () => {
        const read = await running.client.get('/api/v1/batch/payee-banks-1/results');
        if (read.status !== 200 || read.body.results?.length !== 4) return undefined;
        return read.body.results as Array<{ id: string; result: string; reason?: string }>;
      },
      { timeoutMs: 30_000, what: 'the batch results' },
    );
    const byId = new Map(results.map((result) => [result.id, result]));
    assert.equal(byId.get('b1')?.result, 'MATCH');
    assert.equal(byId.get('b2')?.result, 'MATCH');
    assert.equal(byId.get('own')?.result, 'MATCH');
    assert.equal(byId.get('unknown')?.result, 'ERROR');
    assert.equal(byId.get('unknown')?.reason, 'RESPONDER_UNKNOWN');
  });
});

describe('a payee bank that keeps failing is not called while its breaker is open (embedded)', () => {
  let running: RunningEmbedded;
  let bankB: ScriptedResponder;

  before(async () => {
    ({ running, bankB } = await bankAWithBankB(
      { VOP_REQUESTER_BREAKER_FAILURES: '3', VOP_REQUESTER_BREAKER_COOL_DOWN_MS: '60000' },
      germanIban(4243, OWN_CODE),
    ));
  });
  after(async () => {
    await bankB.close();
    await running.stop();
  });

  it('given three failures in a row, when more checks come, then they end RESPONDER_UNAVAILABLE without reaching bank B', async () => {
    bankB.script({ kind: 'status', status: 500, body: { type: 'urn:x', code: 'FORMAT_ERROR' } });
    const reasons: string[] = [];
    for (let n = 0; n < 6; n++) {
      const response = await running.client.post('/api/verify', {
        iban: payeeAtB(100 + n),
        name: 'Erika Mustermann',
      });
      reasons.push(String(response.body.reason));
    }
    assert.equal(bankB.requests().length, 3);
    assert.deepEqual(reasons.slice(0, 3), [
      'RESPONDER_ERROR',
      'RESPONDER_ERROR',
      'RESPONDER_ERROR',
    ]);
    assert.deepEqual(reasons.slice(3), [
      'RESPONDER_UNAVAILABLE',
      'RESPONDER_UNAVAILABLE',
      'RESPONDER_UNAVAILABLE',
    ]);
  });
});
