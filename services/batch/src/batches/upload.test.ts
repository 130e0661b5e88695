import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { ApiError } from '@vop/http';
import { eventLoopTurnsDuring } from '@vop/testing';
import { readCsvEntries, readJsonBody, readNdjsonEntries } from './upload.js';

/** A body arriving in small chunks, as a slow upload does. */
function chunked(text: string, size = 7): Readable {
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
  return Readable.from(chunks);
}

const tooLarge = (error: unknown) =>
  error instanceof ApiError && error.status === 413 && error.code === 'BATCH_TOO_LARGE';

describe('batch uploads, read as streams', () => {
  it('JSON: the whole body, whatever the chunking', async () => {
    const body = { batchId: 'b', verifications: [{ id: '1', iban: 'DE', name: 'A' }] };
    assert.deepEqual(await readJsonBody(chunked(JSON.stringify(body)), 'verifications'), body);
  });

  it('JSON: a buffered body is read a chunk per turn of the event loop, so other work runs between', async () => {
    const verifications = Array.from({ length: 2000 }, (_, index) => ({
      id: String(index),
      iban: 'DE89370400440532013000',
      name: `Holder ${index}`,
    }));
    const text = JSON.stringify({ batchId: 'b', verifications });
    const chunks = text.length / 4096;
    const { result: body, turns } = await eventLoopTurnsDuring(() =>
      readJsonBody(chunked(text, 4096), 'verifications'),
    );
    assert.deepEqual(body, { batchId: 'b', verifications });
    assert.ok(
      turns >= chunks / 2,
      `${turns} turns of the event loop for ${Math.ceil(chunks)} chunks`,
    );
  });

  it('JSON: the 10,001st entry stops the read with 413 before the end of the body', async () => {
    let served = 0;
    const entries = Array.from({ length: 20_000 }, (_, index) => `{"id":"${index}"}`);
    async function* body() {
      yield '{"batchId":"b","verifications":[';
      for (const [index, entry] of entries.entries()) {
        served += 1;
        yield (index > 0 ? ',' : '') + entry;
      }
      yield ']}';
    }
    await assert.rejects(readJsonBody(Readable.from(body()), 'verifications'), tooLarge);
    assert.ok(served < entries.length, `read ${served} of ${entries.length} entries`);
  });

  it('JSON: entries of another array are not counted', async () => {
    const body = { other: Array.from({ length: 10_001 }, () => ({})), verifications: [] };
    assert.deepEqual(
      await readJsonBody(chunked(JSON.stringify(body), 4096), 'verifications'),
      body,
    );
  });

  it('JSON: a broken body is a 400', async () => {
    await assert.rejects(
      readJsonBody(chunked('{"batchId":'), 'verifications'),
      (error: unknown) => error instanceof ApiError && error.status === 400,
    );
  });

  it('CSV: rows by the header id,iban,name; quoted fields; 413 past 10,000 rows', async () => {
    const csv = 'id,iban,name\n1,DE89370400440532013000,"Mustermann, Erika"\n';
    assert.deepEqual(await readCsvEntries(chunked(csv)), [
      { id: '1', iban: 'DE89370400440532013000', name: 'Mustermann, Erika' },
    ]);
    const big = ['id,iban,name', ...Array.from({ length: 10_001 }, (_, i) => `${i},X,Y`)];
    await assert.rejects(readCsvEntries(chunked(big.join('\n'), 1000)), tooLarge);
  });

  it('NDJSON: one entry per line, blank lines ignored; 413 past 10,000 lines', async () => {
    const lines = '{"id":"1"}\n\n{"id":"2"}';
    assert.deepEqual(await readNdjsonEntries(chunked(lines)), [{ id: '1' }, { id: '2' }]);
    const big = Array.from({ length: 10_001 }, (_, i) => `{"id":"${i}"}`).join('\n');
    await assert.rejects(readNdjsonEntries(chunked(big, 1000)), tooLarge);
  });
});
