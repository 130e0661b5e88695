import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseVerificationRequested, type VerificationEnd } from '@vop/contracts';
import { createPgliteClient, EventStore, START, type SqlExecutor } from '@vop/event-store';
import { createPersonalData } from '@vop/personal-data';
import { germanIban } from '@vop/testing';
import type { DecidedEnd, DecideRound } from '@vop/verifications';
import { batchCommands } from './command-handler.js';
import { migrateBatchSchema } from '../migrate.js';
import { entryDecisions } from './entry-decisions.js';
import { fanOutOneChunk, STAGED_PER_ROW } from './fan-out.js';
import { findBatch } from './status-read-model.js';
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

/** Decides every request MTCH (where the batch service passes `roundDecisions(…).decide`). */
const everyEntryMatches: DecideRound = async (envelopes) => {
  const decided = new Map<string, DecidedEnd>();
  for (const envelope of envelopes) {
    const request = parseVerificationRequested(envelope.type, envelope.data);
    const end: VerificationEnd = {
      type: 'VerificationCompleted',
      data: {
        verificationId: request.verificationId,
        family: request.family,
        outcome: 'MTCH',
        score: 1,
        reasons: [],
        ...(request.participant !== undefined && { participant: request.participant }),
        ...(request.batch !== undefined && { batch: request.batch }),
        completedAt: '2026-03-01T09:00:01.000Z',
      },
    };
    decided.set(envelope.eventId, {
      ends: [end],
      events: [{ type: end.type, data: end.data, metadata: {} }],
    });
  }
  return decided;
};

/** The batch service's store, read models and commands on a fresh PGlite, fanning out `chunkSize` a chunk. */
async function batchServiceOnPglite(
  chunkSize: number,
  decisions?: { caughtUp: () => Promise<boolean> },
) {
  const sql = await createPgliteClient({});
  const store = new EventStore(sql, { schema: SCHEMA });
  const { keys, cipher } = createPersonalData(sql);
  await keys.migrate();
  await migrateBatchSchema(sql, store);
  let staged = 0;
  const clock = () => new Date('2026-03-01T09:00:00.000Z');
  const decide =
    decisions && entryDecisions({ decide: everyEntryMatches, accounts: decisions, clock });
  const commands = batchCommands({
    store,
    cipher,
    clock,
    newId: () => randomUUID(),
    fanOutChunkSize: chunkSize,
    onStaged: () => (staged += 1),
    ...(decide && { decide }),
  });
  const fanOut = () =>
    fanOutOneChunk(store, chunkSize, decide && { decide, answer: commands.answerEnds });
  return { sql, store, commands, fanOut, staged: () => staged };
}

/** Each stream's event types, by the batch entry its request names. */
async function streamsByEntry(store: EventStore): Promise<Map<string, string[]>> {
  const { events } = await store.readAll({ after: START, limit: 100_000 });
  const entryOf = new Map<string, string>();
  const byEntry = new Map<string, string[]>();
  for (const event of events) {
    if (event.type === 'VerificationRequested') {
      const request = parseVerificationRequested(event.type, event.data);
      entryOf.set(event.streamId, request.batch?.entryId ?? '?');
    }
    const entry = entryOf.get(event.streamId);
    if (entry === undefined) continue;
    const marked =
      event.type === 'VerificationRequested' &&
      (event.data as { decidedAtRecording?: boolean }).decidedAtRecording === true;
    byEntry.set(entry, [
      ...(byEntry.get(entry) ?? []),
      marked ? 'Requested (decided)' : event.type,
    ]);
  }
  return byEntry;
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
      assert.equal(await fanOutOneChunk(store, 3), undefined);
      assert.deepEqual(await requestedEntries(store), ids);
      assert.deepEqual(await entryIds(sql, 'small'), ids);
    } finally {
      await sql.close();
    }
  });

  it('given entries decided where they are recorded, when a batch is submitted and fanned out, then each request is one stream with its end, the entries are answered in those transactions, and the batch completes without matching', async () => {
    const { sql, store, commands, fanOut } = await batchServiceOnPglite(7, {
      caughtUp: async () => true,
    });
    try {
      const total = 7 + 10;
      const ids = Array.from({ length: total }, (_, index) => `d-${index + 1}`);
      await commands.submitIbanBatch(
        participant,
        'decided',
        ids.map((id, index) => ({ id, iban: germanIban(index + 1), name: 'Erika Mustermann' })),
      );
      const afterSubmission = await findBatch(sql, SCHEMA, participant, 'decided');
      assert.equal(afterSubmission?.processed, 7, 'the first chunk is answered at submission');
      while (await fanOut());

      const streams = await streamsByEntry(store);
      for (const id of ids)
        assert.deepEqual(streams.get(id), ['Requested (decided)', 'VerificationCompleted'], id);
      const batch = await findBatch(sql, SCHEMA, participant, 'decided');
      assert.equal(batch?.status, 'COMPLETED');
      assert.equal(batch?.processed, total);
      assert.equal(batch?.successful, total);
    } finally {
      await sql.close();
    }
  });

  it('given a copy of the accounts still filling, when a batch is submitted and fanned out, then its entries are recorded undecided, for matching', async () => {
    const { sql, store, commands, fanOut } = await batchServiceOnPglite(3, {
      caughtUp: async () => false,
    });
    try {
      const ids = ['u-1', 'u-2', 'u-3', 'u-4'];
      await commands.submitIbanBatch(
        participant,
        'undecided',
        ids.map((id, index) => ({ id, iban: germanIban(index + 1), name: 'Erika Mustermann' })),
      );
      while (await fanOut());
      const streams = await streamsByEntry(store);
      for (const id of ids) assert.deepEqual(streams.get(id), ['VerificationRequested'], id);
      const batch = await findBatch(sql, SCHEMA, participant, 'undecided');
      assert.equal(batch?.status, 'PENDING');
      assert.equal(batch?.processed, 0);
    } finally {
      await sql.close();
    }
  });
});
