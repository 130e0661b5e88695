import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseVerificationRequested } from '@vop/contracts';
import { createPgliteClient, EventStore, START, type SqlExecutor } from '@vop/event-store';
import { createPersonalData } from '@vop/personal-data';
import { germanIban } from '@vop/testing';
import { batchCommands } from './command-handler.js';
import { migrateBatchSchema } from '../migrate.js';
import { fanOutOneChunk, STAGED_PER_ROW } from './fan-out.js';
import { rebuildBatchReadModels } from './rebuild.js';

const SCHEMA = 'batch';
const participant = 'PSDDE-BAFIN-123456';

async function entryIds(sql: SqlExecutor, batchId: string): Promise<string[]> {
  const { rows } = await sql.query<{ entry_id: string }>(
    `SELECT entry_id FROM ${SCHEMA}.batch_entries WHERE batch_id = $1 ORDER BY seq`,
    [batchId],
  );
  return rows.map((row) => row.entry_id);
}

/** The entries of the batch's VerificationRequested events, in the store's order. */
async function requestedEntries(store: EventStore): Promise<string[]> {
  const { events } = await store.readAll({ after: START, limit: 100_000 });
  return events
    .filter((event) => event.type === 'VerificationRequested')
    .map((event) => parseVerificationRequested(event.type, event.data).batch?.entryId ?? '?');
}

/** The batch service's store, read models and commands on a fresh PGlite, fanning out `chunkSize` a chunk. */
async function batchServiceOnPglite(chunkSize: number) {
  const sql = await createPgliteClient({});
  const store = new EventStore(sql, { schema: SCHEMA });
  const { keys, cipher } = createPersonalData(sql);
  await keys.migrate();
  await migrateBatchSchema(sql, store);
  let staged = 0;
  const commands = batchCommands({
    store,
    cipher,
    clock: () => new Date('2026-03-01T09:00:00.000Z'),
    newId: () => randomUUID(),
    fanOutChunkSize: chunkSize,
    onStaged: () => (staged += 1),
  });
  return { sql, store, commands, staged: () => staged };
}

describe('batch fan-out in small transactions', () => {
  it('given a batch bigger than a chunk, when submitted and fanned out, then every entry is requested once, in submission order, numbered in order, and the rebuild agrees', async () => {
    const { sql, store, commands, staged } = await batchServiceOnPglite(7);
    try {
      // The first chunk at submission, then two staged rows: a full one and the rest.
      const total = 7 + STAGED_PER_ROW + 5;
      const ids = Array.from({ length: total }, (_, index) => `e-${index + 1}`);
      await commands.submitIbanBatch(
        participant,
        'big',
        ids.map((id, index) => ({ id, iban: germanIban(index + 1), name: 'Erika Mustermann' })),
      );

      assert.equal(staged(), 1);
      assert.deepEqual(await requestedEntries(store), ids.slice(0, 7));
      assert.deepEqual(await entryIds(sql, 'big'), ids.slice(0, 7));

      let chunks = 0;
      while (await fanOutOneChunk(store, 7)) chunks += 1;

      assert.equal(chunks, Math.ceil(STAGED_PER_ROW / 7) + 1);
      assert.deepEqual(await requestedEntries(store), ids);
      assert.deepEqual(await entryIds(sql, 'big'), ids);
      const { rows } = await sql.query(`SELECT * FROM ${SCHEMA}.batch_fan_out`);
      assert.deepEqual(rows, []);

      await rebuildBatchReadModels(store);
      assert.deepEqual(await entryIds(sql, 'big'), ids);
    } finally {
      await sql.close();
    }
  });

  it('given a batch within one chunk, when submitted, then nothing is staged', async () => {
    const { sql, store, commands, staged } = await batchServiceOnPglite(3);
    try {
      const ids = ['a', 'b', 'c'];
      await commands.submitIbanBatch(
        participant,
        'small',
        ids.map((id, index) => ({ id, iban: germanIban(index + 1), name: 'Erika Mustermann' })),
      );

      assert.equal(staged(), 0);
      assert.equal(await fanOutOneChunk(store, 3), false);
      assert.deepEqual(await requestedEntries(store), ids);
      assert.deepEqual(await entryIds(sql, 'small'), ids);
    } finally {
      await sql.close();
    }
  });
});
