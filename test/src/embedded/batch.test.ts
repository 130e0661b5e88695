import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { passesModulusCheck } from '@vop/contracts';
import { eventually, germanIban } from '@vop/testing';
import {
  accountsKnownToDeciders,
  runEmbedded,
  schemeRequest,
  type RunningEmbedded,
} from './fixtures.js';

const holders = [
  { iban: germanIban(810_001), name: 'Erika Mustermann' },
  { iban: germanIban(810_002), name: 'Deutsche Bank AG' },
  { iban: germanIban(810_003), name: 'Johannes Schmidt' },
];

/** One entry of each kind, repeated: match, close match, no match, unknown account. */
function entries(count: number, prefix = 'e') {
  const kinds = [
    { iban: holders[0]?.iban, name: 'Erika Mustermann' },
    { iban: holders[2]?.iban, name: 'Johanes Schmidt' },
    { iban: holders[1]?.iban, name: 'Commerzbank AG' },
    { iban: germanIban(819_999), name: 'Nobody Known' },
  ];
  return Array.from({ length: count }, (_, index) => ({
    id: `${prefix}-${index}`,
    ...(kinds[index % kinds.length] as { iban: string; name: string }),
  }));
}

const SORT_CODE = '089999';

/** Account numbers that pass the modulus check under SORT_CODE. */
function validAccountNumbers(count: number, from = 71_100_000): string[] {
  const found: string[] = [];
  for (let candidate = from; found.length < count; candidate++) {
    const accountNumber = String(candidate).padStart(8, '0');
    if (passesModulusCheck(SORT_CODE, accountNumber)) found.push(accountNumber);
  }
  return found;
}

describe('batches, embedded (services/batch behind the gateway edge)', () => {
  let running: RunningEmbedded;

  before(async () => {
    running = await runEmbedded();
    for (const holder of holders) {
      const created = await running.admin.post('/accounts', holder);
      assert.equal(created.status, 201, created.text);
    }
    await accountsKnownToDeciders(
      running,
      holders.map((holder) => holder.iban),
    );
  });
  after(async () => running?.stop());

  async function completed(batchId: string) {
    return eventually(
      async () => {
        const status = await running.client.get(`/api/v1/batch/${batchId}`);
        return status.body?.status === 'COMPLETED' ? status : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 50, what: `batch ${batchId} completed` },
    );
  }

  it('form 2: accepted (202), idempotent again, 409 with other entries; progress and results', async () => {
    const verifications = entries(40);
    const submitted = await running.client.post('/api/v1/batch', { batchId: 'b-1', verifications });
    assert.equal(submitted.status, 202, submitted.text);
    assert.equal(submitted.body.batchId, 'b-1');
    assert.match(submitted.body.status, /^(PENDING|PROCESSING|COMPLETED)$/);
    const again = await running.client.post('/api/v1/batch', { batchId: 'b-1', verifications });
    assert.equal(again.status, 202, again.text);
    const other = await running.client.post('/api/v1/batch', {
      batchId: 'b-1',
      verifications: entries(40, 'x'),
    });
    assert.equal(other.status, 409, other.text);

    const status = await completed('b-1');
    assert.deepEqual(status.body, {
      batchId: 'b-1',
      status: 'COMPLETED',
      progress: { total: 40, processed: 40, successful: 40, failed: 0 },
      resultsReady: true,
    });
    const results = await running.client.get('/api/v1/batch/b-1/results');
    assert.equal(results.status, 200, results.text);
    assert.equal(results.body.results.length, 40);
    assert.equal(results.body.nextCursor, undefined);
    const byId = new Map(results.body.results.map((r: { id: string }) => [r.id, r]));
    assert.equal(byId.size, 40);
    assert.deepEqual(byId.get('e-0'), { id: 'e-0', result: 'MATCH', confidence: 'HIGH' });
    const close = byId.get('e-1') as { result: string; matchedName?: string };
    assert.equal(close.result, 'PARTIAL_MATCH');
    assert.equal(close.matchedName, 'Johannes Schmidt');
    assert.deepEqual(byId.get('e-2'), {
      id: 'e-2',
      result: 'NO_MATCH',
      confidence: 'LOW',
      reason: 'NAME_MISMATCH',
    });
    assert.deepEqual(byId.get('e-3'), {
      id: 'e-3',
      result: 'NO_MATCH',
      confidence: 'LOW',
      reason: 'ACCOUNT_NOT_FOUND_OR_CLOSED',
    });
  });

  it('results are paged with a cursor, and served as NDJSON and CSV', async () => {
    const first = await running.client.get('/api/v1/batch/b-1/results?limit=25');
    assert.equal(first.body.results.length, 25);
    assert.equal(typeof first.body.nextCursor, 'string');
    const second = await running.client.get(
      `/api/v1/batch/b-1/results?limit=25&cursor=${first.body.nextCursor}`,
    );
    assert.equal(second.body.results.length, 15);
    assert.equal(second.body.nextCursor, undefined);
    const ids = [...first.body.results, ...second.body.results].map((r: { id: string }) => r.id);
    assert.deepEqual(
      ids,
      entries(40).map((entry) => entry.id),
    );

    const ndjson = await running.client.get('/api/v1/batch/b-1/results', {
      headers: { accept: 'application/x-ndjson' },
    });
    assert.match(String(ndjson.headers['content-type']), /application\/x-ndjson/);
    const lines = ndjson.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(lines.length, 40);
    assert.equal(lines[0].result, 'MATCH');

    const csv = await running.client.get('/api/v1/batch/b-1/results', {
      headers: { accept: 'text/csv' },
    });
    assert.match(String(csv.headers['content-type']), /text\/csv/);
    const rows = csv.text.trim().split('\n');
    assert.equal(rows[0], 'id,result,confidence,reason,matchedName');
    assert.equal(rows.length, 41);
    assert.equal(rows[1], 'e-0,MATCH,HIGH,,');
  });

  it('a batch is read only by the participant that submitted it (another gets 404)', async () => {
    assert.equal((await running.admin.get('/api/v1/batch/b-1')).status, 404);
    assert.equal((await running.admin.get('/api/v1/batch/b-1/results')).status, 404);
    assert.equal((await running.client.get('/api/v1/batch/nope')).status, 404);
  });

  it('more than 10,000 entries: 413 BATCH_TOO_LARGE (flat, action to split); nothing recorded', async () => {
    const response = await running.client.post('/api/v1/batch', {
      batchId: 'too-big',
      verifications: entries(10_001),
    });
    assert.equal(response.status, 413, response.text);
    assert.equal(response.body.error, 'BATCH_TOO_LARGE');
    assert.match(response.body.action, /[Ss]plit/);
    assert.equal((await running.client.get('/api/v1/batch/too-big')).status, 404);
  });

  it('bad entries refuse the batch naming the record; a refused batch leaves no trace', async () => {
    const invalidIban = entries(3, 'bad');
    (invalidIban[1] as { iban: string }).iban = 'DE00123';
    const iban = await running.client.post('/api/v1/batch', {
      batchId: 'bad-1',
      verifications: invalidIban,
    });
    assert.equal(iban.status, 400, iban.text);
    assert.equal(iban.body.error, 'INVALID_IBAN');
    assert.equal(iban.body.field, 'verifications[1].iban');
    assert.match(iban.body.message, /bad-1/);

    const duplicate = [...entries(2, 'dup'), ...entries(1, 'dup')];
    const dup = await running.client.post('/api/v1/batch', {
      batchId: 'bad-2',
      verifications: duplicate,
    });
    assert.equal(dup.status, 400, dup.text);
    assert.equal(dup.body.field, 'verifications[2].id');

    const missing = await running.client.post('/api/v1/batch', {
      batchId: 'bad-3',
      verifications: [{ id: 'm-1', iban: holders[0]?.iban }],
    });
    assert.equal(missing.status, 400, missing.text);
    assert.equal(missing.body.error, 'MISSING_FIELD');
    assert.equal(missing.body.field, 'verifications[0].name');
    for (const batchId of ['bad-1', 'bad-2', 'bad-3'])
      assert.equal((await running.client.get(`/api/v1/batch/${batchId}`)).status, 404);
    const { rows } = await running.service.sql.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM batch.messages WHERE stream_id LIKE 'batch|bad-%'`,
    );
    assert.equal(rows[0]?.count, 0);
  });

  it('uploads as CSV and NDJSON (?batchId=) are the same form 2 submission', async () => {
    const csvBody = [
      'id,iban,name',
      ...entries(6, 'c').map((e) => `${e.id},${e.iban},"${e.name}"`),
    ];
    const csv = await running.client.request('POST', '/api/v1/batch?batchId=csv-1', {
      rawBody: csvBody.join('\n'),
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(csv.status, 202, csv.text);
    const ndjson = await running.client.request('POST', '/api/v1/batch?batchId=nd-1', {
      rawBody: entries(5, 'n')
        .map((e) => JSON.stringify(e))
        .join('\n'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    assert.equal(ndjson.status, 202, ndjson.text);
    assert.equal((await completed('csv-1')).body.progress.total, 6);
    assert.equal((await completed('nd-1')).body.progress.total, 5);
  });

  it('form 1 (POST /verify/batch): 202 with a batchId; unknown accounts answer NO_MATCH with the reason', async () => {
    const response = await running.client.post('/verify/batch', {
      accounts: [
        { accountNumber: '12345678', sortCode: '12-34-56', accountName: 'Jane Doe' },
        { accountNumber: '87654321', sortCode: '654321', accountName: 'John Doe' },
      ],
    });
    assert.equal(response.status, 202, response.text);
    const batchId = response.body.batchId as string;
    const status = await completed(batchId);
    assert.deepEqual(status.body.progress, { total: 2, processed: 2, successful: 2, failed: 0 });
    const results = await running.client.get(`/api/v1/batch/${batchId}/results`);
    assert.deepEqual(results.body.results, [
      { id: '1', result: 'NO_MATCH', confidence: 'LOW', reason: 'ACCOUNT_NOT_FOUND_OR_CLOSED' },
      { id: '2', result: 'NO_MATCH', confidence: 'LOW', reason: 'ACCOUNT_NOT_FOUND_OR_CLOSED' },
    ]);
    const bad = await running.client.post('/verify/batch', {
      accounts: [{ accountNumber: '12345678', accountName: 'Jane Doe' }],
    });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.field, 'accounts[0].sortCode');
  });

  it('form 1 as family D: known accounts answer by name (match, close match, no match); closed and unknown ones NO_MATCH', async () => {
    const [matched, close, mismatched, closed, unknown] = validAccountNumbers(5);
    const domestic = [
      { n: matched, name: 'James Smith', status: 'active', i: 820_001 },
      { n: close, name: 'Johannes Schmidt', status: 'active', i: 820_002 },
      { n: mismatched, name: 'Acme Trading Ltd', status: 'active', i: 820_003 },
      { n: closed, name: 'Mary Jones', status: 'closed', i: 820_004 },
    ];
    for (const account of domestic) {
      const created = await running.admin.post('/accounts', {
        iban: germanIban(account.i),
        name: account.name,
        status: account.status,
        domesticAccount: { sortCode: '08-99-99', accountNumber: account.n },
      });
      assert.equal(created.status, 201, created.text);
    }
    // The batch service learns accounts from their events: wait until it holds all four.
    await eventually(
      async () => {
        const { rows } = await running.service.sql.query<{ known: number }>(
          `SELECT count(*)::int AS known FROM batch.domestic_accounts
            WHERE sort_code = $1 AND NOT deleted`,
          [SORT_CODE],
        );
        return rows[0]?.known === domestic.length ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 50, what: 'the batch service knows the accounts' },
    );

    const entry = (accountNumber: string | undefined, accountName: string) => ({
      accountNumber,
      sortCode: '08-99-99',
      accountName,
    });
    const response = await running.client.post('/verify/batch', {
      accounts: [
        entry(matched, 'James Smith'),
        entry(close, 'Johanes Schmidt'),
        entry(mismatched, 'Globex Corporation'),
        entry(closed, 'Mary Jones'),
        entry(unknown, 'Nobody Known'),
      ],
    });
    assert.equal(response.status, 202, response.text);
    const batchId = response.body.batchId as string;
    const status = await completed(batchId);
    assert.deepEqual(status.body.progress, { total: 5, processed: 5, successful: 5, failed: 0 });
    const results = await running.client.get(`/api/v1/batch/${batchId}/results`);
    assert.equal(results.status, 200, results.text);
    const [first, second, ...rest] = results.body.results;
    assert.deepEqual(first, { id: '1', result: 'MATCH', confidence: 'HIGH' });
    assert.equal(second.id, '2');
    assert.equal(second.result, 'PARTIAL_MATCH');
    assert.equal(second.matchedName, 'Johannes Schmidt');
    const notFound = 'ACCOUNT_NOT_FOUND_OR_CLOSED';
    assert.deepEqual(rest, [
      { id: '3', result: 'NO_MATCH', confidence: 'LOW', reason: 'NAME_MISMATCH' },
      { id: '4', result: 'NO_MATCH', confidence: 'LOW', reason: notFound },
      { id: '5', result: 'NO_MATCH', confidence: 'LOW', reason: notFound },
    ]);
  });

  it('a single check overtakes a running 2,000-entry batch (batch entries travel on their own topic)', async () => {
    const submitted = await running.client.post('/api/v1/batch', {
      batchId: 'big-1',
      verifications: entries(2000, 'big'),
    });
    assert.equal(submitted.status, 202, submitted.text);
    const single = await running.client.post(
      '/vop/verify',
      schemeRequest('Erika Mustermann', holders[0]?.iban as string),
    );
    // Not a timed assertion (the 2 s deadline on a shared machine): the single check is recorded, and
    // its outcome exists before the batch that was submitted first has finished.
    const verificationId = String(single.headers['x-verification-id']);
    const outcome = await eventually(async () => {
      const result = await running.client.get(`/verify/${verificationId}`);
      return result.status === 200 ? result : undefined;
    });
    assert.equal(outcome.body.name_match_code, 'MATCH');
    assert.equal((await completed('big-1')).body.progress.processed, 2000);
    const { rows } = await running.service.sql.query<{ completed_at: string }>(
      `SELECT data->>'completedAt' AS completed_at FROM batch.messages
        WHERE type = 'BatchCompleted' AND data->>'batchId' = 'big-1'`,
    );
    const batchCompletedAt = Date.parse(rows[0]?.completed_at ?? '');
    assert.ok(
      Date.parse(outcome.body.response_timestamp) < batchCompletedAt,
      `single check at ${outcome.body.response_timestamp}, batch at ${rows[0]?.completed_at}`,
    );
  });

  it('a completed batch is recorded as BatchCompleted (published on the batch-events topic)', async () => {
    const { rows } = await running.service.sql.query<{ data: { batchId: string; total: number } }>(
      `SELECT data FROM batch.messages WHERE type = 'BatchCompleted' AND data->>'batchId' = 'b-1'`,
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.data.total, 40);
  });
});
