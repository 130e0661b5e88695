import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { VerificationCompletedData, VerificationRequestedData } from '@vop/contracts';
import {
  createPgliteThreadClient,
  EventStore,
  writeTogether,
  START,
  type Checkpoint,
  type NewEvent,
} from '@vop/event-store';
import { germanIban } from '@vop/testing';
import { runContext } from './run-context.js';

/**
 * The least a single check's durable record costs the embedded default, whatever the route around it:
 * its two events (the request and its end, as the recorder writes them, without the results row, the
 * notify or any read model) appended in rounds of 1 to 256 checks, on PGlite's own thread with a data
 * folder as `services/embedded` runs it, and read back a page of 500 at a time as the outbox relay does.
 * Beside it the same rounds, as the same JSON, appended to a plain file with one write and one
 * fdatasync a round (a journal). The figure is the process's CPU (every thread) per check, one round in
 * flight; the arithmetic that follows from it is in docs/architecture.md ("Where the embedded default
 * stops") and bench/RESULTS.md §1.
 * Usage: node bench/dist/record-floor.bench.js [--checks 8000]
 */
const { values: flags } = parseArgs({
  options: { checks: { type: 'string', default: '8000' } },
});
const checksPerSize = Number(flags.checks);
if (!Number.isInteger(checksPerSize) || checksPerSize < 256)
  throw new Error('--checks must be an integer >= 256');
const ROUND_SIZES = [1, 8, 32, 128, 256];
const RELAY_PAGE = 500;

const context = runContext();
process.stdout.write(`${context.header}\n`);

function checkEvents(index: number): { streamId: string; events: NewEvent[] } {
  const verificationId = randomUUID();
  const now = new Date().toISOString();
  const metadata = {
    correlationId: randomUUID(),
    traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
    schemaVersion: '1',
  };
  const request: VerificationRequestedData = {
    verificationId,
    family: 'scheme',
    iban: germanIban(700_000 + index),
    // The typed name travels encrypted (packages/personal-data): a sealed value of about this length.
    name: `v1.${randomUUID()}.${Buffer.from(randomUUID() + randomUUID()).toString('base64url')}`,
    requestingAgentBic: 'COBADEFFXXX',
    partyAgentBic: 'DEUTDEFFXXX',
    participant: 'COBADEFFXXX',
    decidedAtRecording: true,
    requestedAt: now,
  };
  const completed: VerificationCompletedData = {
    verificationId,
    family: 'scheme',
    outcome: 'MTCH',
    score: 1,
    reasons: [],
    participant: 'COBADEFFXXX',
    decidedAtRecording: true,
    completedAt: now,
  };
  return {
    streamId: `verification-${verificationId}`,
    events: [
      { eventId: randomUUID(), type: 'VerificationRequested', data: request, metadata },
      { eventId: randomUUID(), type: 'VerificationCompleted', data: completed, metadata },
    ],
  };
}

/** Rounds of `size` checks, `checks` checks in all (the last round filled up). */
function rounds(
  size: number,
  checks = checksPerSize,
): { streamId: string; events: NewEvent[] }[][] {
  const count = Math.ceil(checks / size);
  return Array.from({ length: count }, (_, round) =>
    Array.from({ length: size }, (_, index) => checkEvents(round * size + index)),
  );
}

/** CPU of the whole process (every thread) and wall time of `work`, per check. */
async function measured(
  checks: number,
  work: () => Promise<void>,
): Promise<{ cpuMicros: number; wallMs: number }> {
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  await work();
  const cpu = process.cpuUsage(cpuBefore);
  return {
    cpuMicros: (cpu.user + cpu.system) / checks,
    wallMs: performance.now() - wallBefore,
  };
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-record-floor-'));
const sql = await createPgliteThreadClient({ dataDir: path.join(dataDir, 'pglite') });
const store = new EventStore(sql, { schema: 'gateway' });
await store.migrate();
const journal = await open(path.join(dataDir, 'journal.jsonl'), 'a');

const lines: string[] = [
  '| checks a round | PGlite: append, CPU µs a check | PGlite: read back, CPU µs a check | PGlite: ms a round | journal: append + fdatasync, CPU µs a check | journal: ms a round |',
  '|---:|---:|---:|---:|---:|---:|',
];
let readFrom: Checkpoint = START;
/** Reads what was appended since the last read, a relay's page at a time; says how many events. */
async function readToEnd(): Promise<number> {
  let events = 0;
  for (;;) {
    const page = await store.readAll({ after: readFrom, limit: RELAY_PAGE });
    if (page.events.length === 0) return events;
    events += page.events.length;
    readFrom = page.checkpoint;
  }
}
try {
  // Warm-up: the statement is prepared, the tables and the JIT are warm before the first figure.
  for (const round of rounds(32, 1_600)) await writeTogether(sql, [store.startStreamsWrite(round)]);
  await readToEnd();
  for (const size of ROUND_SIZES) {
    // The journal takes the same rounds: only their JSON reaches the file.
    const sized = rounds(size);
    const checks = sized.length * size;
    const append = await measured(checks, async () => {
      for (const round of sized) await writeTogether(sql, [store.startStreamsWrite(round)]);
    });
    let eventsRead = 0;
    const readBack = await measured(checks, async () => {
      eventsRead = await readToEnd();
    });
    if (eventsRead !== checks * 2)
      throw new Error(`read back ${eventsRead} events, expected ${checks * 2}`);
    const journalled = await measured(checks, async () => {
      for (const round of sized) {
        await journal.write(`${JSON.stringify(round)}\n`);
        await journal.datasync();
      }
    });
    lines.push(
      `| ${size} | ${append.cpuMicros.toFixed(0)} | ${readBack.cpuMicros.toFixed(0)} | ${(append.wallMs / sized.length).toFixed(2)} | ${journalled.cpuMicros.toFixed(0)} | ${(journalled.wallMs / sized.length).toFixed(2)} |`,
    );
  }
} finally {
  await journal.close();
  await sql.close();
  await rm(dataDir, { recursive: true, force: true });
}
process.stdout.write(
  `\nA single check's two events, ${checksPerSize} checks per round size, one round in flight\n${lines.join('\n')}\n${context.footer()}\n`,
);
