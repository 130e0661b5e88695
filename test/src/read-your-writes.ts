import assert from 'node:assert/strict';
import { germanIban, type HttpsClient } from '@vop/testing';
import { schemeRequest } from './embedded/fixtures.js';

/** The two callers of a deployment: the bank writing its accounts, a participant checking them. */
export interface Callers {
  admin: HttpsClient;
  client: HttpsClient;
}

/** Runs `task` for 0..count-1, at most `concurrency` at a time. */
export async function inPool(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** A single check's outcome (partyNameMatch), asked at once. */
export async function checked({ client }: Callers, name: string, iban: string): Promise<string> {
  const answer = await client.post('/vop/verify', schemeRequest(name, iban));
  assert.equal(answer.status, 200, answer.text);
  return answer.body.partyNameMatch as string;
}

/**
 * Each try writes an account (`POST /accounts`) and checks it the moment the write is answered;
 * returns the outcomes that were not MTCH, with the try that got them.
 */
export async function writeThenCheck(
  callers: Callers,
  options: { tries: number; concurrency: number; firstAccount: number },
): Promise<string[]> {
  const misses: string[] = [];
  await inPool(options.tries, options.concurrency, async (index) => {
    const iban = germanIban(options.firstAccount + index);
    const name = `Reader Writer ${String.fromCharCode(65 + (index % 26))}`;
    const created = await callers.admin.post('/accounts', { iban, name });
    assert.equal(created.status, 201, created.text);
    const outcome = await checked(callers, name, iban);
    if (outcome !== 'MTCH') misses.push(`try ${index}: ${outcome}`);
  });
  return misses;
}

/** An update and a deletion are seen by the next check, as an opening is. */
export async function changeThenCheck(callers: Callers, account: number): Promise<void> {
  const iban = germanIban(account);
  const created = await callers.admin.post('/accounts', { iban, name: 'Before Renaming' });
  assert.equal(created.status, 201, created.text);
  const id = created.body.id as string;
  assert.equal(await checked(callers, 'Before Renaming', iban), 'MTCH');

  const renamed = await callers.admin.put(`/api/accounts/${id}`, { name: 'Quentin Osei' });
  assert.equal(renamed.status, 200, renamed.text);
  assert.equal(await checked(callers, 'Quentin Osei', iban), 'MTCH');

  const closed = await callers.admin.put(`/api/accounts/${id}`, { status: 'closed' });
  assert.equal(closed.status, 200, closed.text);
  assert.equal(await checked(callers, 'Quentin Osei', iban), 'NOAP');

  const deleted = await callers.admin.delete(`/api/accounts/${id}`);
  assert.equal(deleted.status, 204, deleted.text);
  assert.equal(await checked(callers, 'Quentin Osei', iban), 'NOAP');
}

/** Records of a bulk import are verifiable once the import has answered. */
export async function importThenCheck(callers: Callers, firstAccount: number): Promise<void> {
  const records = Array.from({ length: 20 }, (_, index) => ({
    iban: germanIban(firstAccount + index),
    name: `Imported Reader ${String.fromCharCode(65 + index)}`,
  }));
  const imported = await callers.admin.request('POST', '/admin/accounts/import', {
    rawBody: records.map((record) => JSON.stringify(record)).join('\n'),
    headers: { 'content-type': 'application/x-ndjson' },
  });
  assert.equal(imported.status, 201, imported.text);
  const outcomes = await Promise.all(
    records.map((record) => checked(callers, record.name, record.iban)),
  );
  assert.deepEqual(
    outcomes.filter((outcome) => outcome !== 'MTCH'),
    [],
  );
}
