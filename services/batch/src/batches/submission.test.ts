import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { ApiError } from '@vop/http';
import { eventLoopTurnsDuring } from '@vop/testing';
import { parseAccountNumberEntries, parseIbanEntries } from './submission.js';
import { readCsvEntries, readJsonBody, readNdjsonEntries } from './upload.js';

const entries = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    id: String(index),
    iban: 'DE89370400440532013000',
    name: `Holder ${index}`,
  }));

describe('batch submission entries', () => {
  it('checks thousands of entries with the event loop turning between groups of them', async () => {
    const { result: parsed, turns } = await eventLoopTurnsDuring(() =>
      parseIbanEntries(entries(2000)),
    );
    assert.equal(parsed.length, 2000);
    assert.ok(turns >= 3, `${turns} turns of the event loop while 2,000 entries were checked`);
  });

  it('still names the first invalid entry after the first group', async () => {
    const raw = entries(1200);
    raw[1100] = { ...raw[1100]!, iban: 'DE00000000000000000000' };
    await assert.rejects(
      parseIbanEntries(raw),
      (error: unknown) =>
        error instanceof ApiError &&
        error.code === 'INVALID_IBAN' &&
        error.message.includes('verifications[1100].iban') &&
        error.message.includes('"1100"'),
    );
  });
});

describe('characters in batch entries (uploads are read by the batch service, not by the edge)', () => {
  const IBAN = 'DE89370400440532013000';
  const body = (...parts: (string | Buffer)[]) =>
    Readable.from([Buffer.concat(parts.map((part) => Buffer.from(part)))]);
  /** A lone high surrogate written as UTF-8 bytes: decoded, it becomes U+FFFD. */
  const LONE_SURROGATE_BYTES = Buffer.from([0xed, 0xa0, 0x80]);
  const refused = (field: string, record: string) => (error: unknown) =>
    error instanceof ApiError &&
    error.status === 400 &&
    error.code === 'INVALID_CHARACTERS' &&
    error.extra.field === field &&
    error.extra.reason === 'INVALID_CHARACTERS' &&
    error.message === `Control or invalid characters in field: ${field} (${record})`;

  it('NDJSON: a lone surrogate as a JSON escape is refused, naming the field and the entry', async () => {
    const raw = await readNdjsonEntries(
      body(
        `{"id":"ok","iban":"${IBAN}","name":"A"}\n`,
        `{"id":"e-2","iban":"${IBAN}","name":"Eri\\ud800ka"}`,
      ),
    );
    await assert.rejects(parseIbanEntries(raw), refused('verifications[1].name', 'entry "e-2"'));
  });

  it('NDJSON: a lone surrogate as UTF-8 bytes (read as U+FFFD) is refused', async () => {
    const raw = await readNdjsonEntries(
      body(`{"id":"e-1","iban":"${IBAN}","name":"Eri`, LONE_SURROGATE_BYTES, 'ka"}'),
    );
    await assert.rejects(parseIbanEntries(raw), refused('verifications[0].name', 'entry "e-1"'));
  });

  it('CSV: a lone surrogate as bytes in the name, or a control character in the id, is refused; a bad id is never echoed', async () => {
    const name = await readCsvEntries(
      body(`id,iban,name\ne-1,${IBAN},Eri`, LONE_SURROGATE_BYTES, 'ka\n'),
    );
    await assert.rejects(parseIbanEntries(name), refused('verifications[0].name', 'entry "e-1"'));
    const id = await readCsvEntries(body(`id,iban,name\ne\u0000-1,${IBAN},Erika\n`));
    await assert.rejects(parseIbanEntries(id), refused('verifications[0].id', 'entry 0'));
  });

  it('JSON: a lone surrogate in the IBAN, or in a key, is refused; the key is not echoed', async () => {
    const iban = await readJsonBody(
      body(`{"batchId":"b","verifications":[{"id":"e-1","iban":"DE89\\udc00","name":"A"}]}`),
      'verifications',
    );
    await assert.rejects(
      parseIbanEntries((iban as { verifications: unknown[] }).verifications),
      refused('verifications[0].iban', 'entry "e-1"'),
    );
    await assert.rejects(
      parseIbanEntries([{ id: 'e-1', iban: IBAN, name: 'A', 'x\ud800': 'y' }]),
      refused('verifications[0]', 'entry "e-1"'),
    );
  });

  it('a character that spoofs how a name looks (U+2028, a bidi override, a zero-width space) is refused as the edge refuses it', async () => {
    for (const name of ['Erika\u2028Mustermann', 'Erika \u202Eannam', 'Eri\u200Bka'])
      await assert.rejects(
        parseIbanEntries([{ id: 'e-1', iban: IBAN, name }]),
        refused('verifications[0].name', 'entry "e-1"'),
      );
  });

  it('form 1 (account number): every string field is checked too', async () => {
    const entry = { accountNumber: '12345678', sortCode: '08-99-99', accountName: 'Erika' };
    for (const field of Object.keys(entry))
      await assert.rejects(
        parseAccountNumberEntries([{ ...entry, [field]: `${'1'}\ud800` }]),
        refused(`accounts[0].${field}`, 'entry 0'),
      );
  });
});
