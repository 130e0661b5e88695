import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, germanIban, type ScriptedResponder } from '@vop/testing';
import {
  BANK_B,
  loadBankB,
  OWN_CODE,
  OWN_HOLDER,
  payeeAtB,
  startBankB,
  UNLISTED_CODE,
} from '../payee-bank-reference-data.js';
import { startCluster, type Cluster } from './cluster.js';

// The requesting side (issue 40) on the distributed run: a request/result check and batch entries about
// payees at bank B travel the routing topic on Kafka to the gateway's consumer, which asks bank B (a
// scripted responder) and appends the ends that the results and the batch progress read.
describe('checks about payees at another bank, distributed (PostgreSQL, Kafka)', () => {
  let cluster: Cluster;
  let bankB: ScriptedResponder;
  const ownIban = germanIban(5151, OWN_CODE);

  before(async () => {
    cluster = await startCluster({
      prefix: 'payee_banks',
      env: { VOP_REQUESTER_BREAKER_FAILURES: '1000', VOP_REQUESTER_BREAKER_MIN_CALLS: '1000' },
    });
    bankB = await startBankB(cluster.pki);
    await loadBankB(cluster.admin, bankB, ownIban);
  });
  after(async () => {
    await bankB?.close();
    await cluster?.stop();
  });

  const resultOf = (id: string) =>
    eventually(
      async () => {
        const read = await cluster.client.get(`/verify/${id}`);
        return read.status === 200 ? read.body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: `the result of ${id}` },
    );

  it('given bank B answers MTCH, then an immediate check is answered with it and reads back with the bank asked', async () => {
    bankB.script({ kind: 'answer', body: { partyNameMatch: 'MTCH' } });
    const response = await eventually(
      async () => {
        // The directory is served by every gateway within its refresh: until then bank B is unknown.
        const answer = await cluster.client.post('/api/verify', {
          iban: payeeAtB(1),
          name: 'Erika Mustermann',
        });
        return answer.body?.match === true ? answer : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 500, what: 'a match from bank B' },
    );
    const read = await resultOf(String(response.body.verification_id));
    assert.deepEqual(read.routed_to, { bic: BANK_B.bic, participant: BANK_B.participant });
  });

  it('given a request/result check, then the routing consumer asks bank B and the result is its answer; a 500 is FAILED with RESPONDER_ERROR', async () => {
    bankB.script({ kind: 'answer', body: { partyNameMatch: 'CMTC', matchedName: 'Erika Muster' } });
    const accepted = await cluster.client.post('/verify', {
      iban: payeeAtB(2),
      name: 'Erika Mustermann',
    });
    assert.equal(accepted.status, 201, accepted.text);
    const close = await resultOf(String(accepted.body.request_id));
    assert.equal(close.name_match_code, 'PARTIAL');
    assert.equal(close.matched_name, 'Erika Muster');

    bankB.script({ kind: 'status', status: 500, body: { type: 'urn:x', code: 'FORMAT_ERROR' } });
    const failing = await cluster.client.post('/verify', {
      iban: payeeAtB(3),
      name: 'Erika Mustermann',
    });
    const failed = await resultOf(String(failing.body.request_id));
    assert.equal(failed.status, 'FAILED', JSON.stringify(failed));
    assert.equal(failed.reason, 'RESPONDER_ERROR');
  });

  it('given a batch with payees at bank B, at our bank and at no known bank, then every entry is answered: bank B’s with its word, ours here, the unknown one ERROR', async () => {
    bankB.script({ kind: 'answer', body: { partyNameMatch: 'NMTC' } });
    const submitted = await cluster.client.post('/api/v1/batch', {
      batchId: 'payee-banks-distributed',
      verifications: [
        { id: 'b', iban: payeeAtB(4), name: 'Max Mustermann' },
        { id: 'own', iban: ownIban, name: OWN_HOLDER },
        { id: 'unknown', iban: germanIban(5, UNLISTED_CODE), name: 'Max Mustermann' },
      ],
    });
    assert.ok(submitted.status < 300, submitted.text);
    const results = await eventually(
      async () => {
        const read = await cluster.client.get('/api/v1/batch/payee-banks-distributed/results');
        return read.status === 200 && read.body.results?.length === 3
          ? (read.body.results as Array<{ id: string; result: string; reason?: string }>)
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'the batch results' },
    );
    const byId = new Map(results.map((result) => [result.id, result]));
    assert.equal(byId.get('b')?.result, 'NO_MATCH');
    assert.equal(byId.get('own')?.result, 'MATCH');
    assert.deepEqual(byId.get('unknown'), {
      id: 'unknown',
      result: 'ERROR',
      confidence: 'LOW',
      reason: 'RESPONDER_UNKNOWN',
    });
    const status = await cluster.client.get('/api/v1/batch/payee-banks-distributed');
    assert.deepEqual(status.body.progress, { total: 3, processed: 3, successful: 2, failed: 1 });
  });
});
