import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createPgliteClient, EventStore, type SqlClient, type SqlExecutor } from '@vop/event-store';
import { createPersonalData } from '@vop/personal-data';
import { germanIban } from '@vop/testing';
import { projectDomesticAccount } from '../domestic-accounts/read-model.js';
import { batchCommands } from './command-handler.js';
import { migrateBatchSchema } from '../migrate.js';
import { rebuildBatchReadModels } from './rebuild.js';
import { FAILED_OUTCOME, type Answer } from './status-read-model.js';

const SCHEMA = 'batch';
const run = promisify(execFile);
const rebuildCommand = fileURLToPath(new URL('../rebuild.js', import.meta.url));
const participant = 'PSDDE-BAFIN-123456';

/** Every row of both read models, in a stable order. */
async function readModels(sql: SqlExecutor) {
  const { rows: batches } = await sql.query(
    `SELECT * FROM ${SCHEMA}.batches ORDER BY participant, batch_id`,
  );
  const { rows: entries } = await sql.query(
    `SELECT * FROM ${SCHEMA}.batch_entries ORDER BY participant, batch_id, seq`,
  );
  return { batches, entries };
}

const answer = (batchId: string, entryId: string, outcome: string): Answer => ({
  participant,
  batchId,
  entryId,
  outcome,
  score: outcome === 'MTCH' ? 1 : 0,
  reasons: outcome === FAILED_OUTCOME ? ['TIMEOUT'] : [],
});

/**
 * Running, completed, failed and form 1 batches, with entries answered twice and failed; the form 1
 * batch holds a known account's entry (looked up, answered later) before an unknown one (judged).
 */
async function recordSampleBatches(sql: SqlClient): Promise<{ form1BatchId: string }> {
  const store = new EventStore(sql, { schema: SCHEMA });
  const { keys, cipher } = createPersonalData(sql);
  await keys.migrate();
  await migrateBatchSchema(sql, store);
  await sql.transaction((tx) =>
    projectDomesticAccount(tx, SCHEMA, {
      type: 'AccountOpened',
      data: {
        accountId: randomUUID(),
        iban: germanIban(99),
        name: 'Erika Mustermann',
        alternateNames: [],
        status: 'active',
        domesticAccount: { sortCode: '112233', accountNumber: '87654321' },
        createdAt: '2026-03-01T08:00:00.000Z',
      },
    }),
  );
  let tick = 0;
  const commands = batchCommands({
    store,
    cipher,
    // A clock that moves, so a rebuild that took the wrong instant would show.
    clock: () => new Date(Date.UTC(2026, 2, 1, 9, 0, tick++)),
    newId: () => randomUUID(),
  });
  const entries = (count: number) =>
    Array.from({ length: count }, (_, index) => ({
      id: `e-${index + 1}`,
      iban: germanIban(index + 1),
      name: 'Erika Mustermann',
    }));
  await commands.submitIbanBatch(participant, 'running', entries(3));
  await commands.submitIbanBatch(participant, 'completed', entries(3));
  await commands.submitIbanBatch(participant, 'failed', entries(2));
  const form1 = await commands.submitAccountNumberBatch(participant, [
    { accountNumber: '87654321', sortCode: '112233', accountName: 'Erika Mustermann' },
    { accountNumber: '12345678', sortCode: '112233', accountName: 'Erika Mustermann' },
  ]);
  const answerAll = (answers: Answer[]) =>
    sql.transaction((tx) => commands.answerEntries(tx, answers));
  await answerAll([
    answer('running', 'e-2', 'NMTC'),
    answer('completed', 'e-1', 'MTCH'),
    answer('completed', 'e-2', FAILED_OUTCOME),
    answer('failed', 'e-1', FAILED_OUTCOME),
  ]);
  await answerAll([
    answer('completed', 'e-2', 'MTCH'),
    answer('completed', 'e-3', 'CMTC'),
    answer('failed', 'e-2', FAILED_OUTCOME),
    answer(form1.batchId, '1', 'MTCH'),
  ]);
  return { form1BatchId: form1.batchId };
}

describe('batch read models rebuilt from the batch events', () => {
  it('given running, completed, failed and form 1 batches, when rebuilt, then the read models are as before', async () => {
    const sql = await createPgliteClient({});
    try {
      const { form1BatchId } = await recordSampleBatches(sql);
      const before = await readModels(sql);
      assert.deepEqual(
        new Map(
          before.batches.map((row) => [row.batch_id, [row.status, row.processed, row.failed]]),
        ),
        new Map([
          [form1BatchId, ['COMPLETED', 2, 0]],
          ['completed', ['COMPLETED', 3, 1]],
          ['failed', ['FAILED', 2, 2]],
          ['running', ['PROCESSING', 1, 0]],
        ]),
      );

      const counted = await rebuildBatchReadModels(new EventStore(sql, { schema: SCHEMA }));

      assert.deepEqual(counted, { batches: 4, answers: 1 + 3 + 2 + 2 });
      assert.deepEqual(await readModels(sql), before);
    } finally {
      await sql.close();
    }
  });

  it('given an embedded data folder whose read models were lost, when the rebuild command runs, then they are back', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-batch-rebuild-'));
    try {
      const open = () => createPgliteClient({ dataDir: path.join(dataDir, 'pglite') });
      let sql = await open();
      await recordSampleBatches(sql);
      const before = await readModels(sql);
      await sql.query(`DELETE FROM ${SCHEMA}.batch_entries`);
      await sql.query(`UPDATE ${SCHEMA}.batches SET status = 'PENDING', processed = 0`);
      await sql.close();

      const { DATABASE_URL: _distributed, ...env } = process.env;
      const { stdout } = await run(process.execPath, [rebuildCommand], {
        env: { ...env, VOP_DATA_DIR: dataDir },
      });

      assert.match(stdout, /4 batches, 8 entries answered/);
      sql = await open();
      try {
        assert.deepEqual(await readModels(sql), before);
      } finally {
        await sql.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
