import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Where gc-recorder.ts writes each thread's totals. */
export const GC_DIR_VARIABLE = 'VOP_BENCH_GC_DIR';

/** Pauses counted by length: at least this many ms. */
export const PAUSE_BUCKETS_MS = [5, 10, 20, 50] as const;

/** One thread's running totals since it started (gc-recorder.ts). */
export interface GcTotals {
  pid: number;
  threadId: number;
  scavenges: number;
  scavengeMs: number;
  markCompacts: number;
  markCompactMs: number;
  /** Per PAUSE_BUCKETS_MS bound: pauses of any kind at least that long. */
  pausesAtLeastMs: number[];
  allocatedBytes: number;
}

/** Every thread's latest totals, by process id. */
export function readGcTotals(directory: string): Map<number, GcTotals[]> {
  const byProcess = new Map<number, GcTotals[]>();
  for (const name of readdirSync(directory)) {
    if (!name.endsWith('.json')) continue;
    // A file is rewritten every second; one caught half-written is read again at the next row.
    let totals: GcTotals;
    try {
      totals = JSON.parse(readFileSync(path.join(directory, name), 'utf8')) as GcTotals;
    } catch {
      continue;
    }
    byProcess.set(totals.pid, [...(byProcess.get(totals.pid) ?? []), totals]);
  }
  return byProcess;
}

function summed(threads: GcTotals[] | undefined): GcTotals | undefined {
  if (threads === undefined || threads.length === 0) return undefined;
  return threads.reduce((sum, thread) => ({
    ...sum,
    scavenges: sum.scavenges + thread.scavenges,
    scavengeMs: sum.scavengeMs + thread.scavengeMs,
    markCompacts: sum.markCompacts + thread.markCompacts,
    markCompactMs: sum.markCompactMs + thread.markCompactMs,
    pausesAtLeastMs: sum.pausesAtLeastMs.map(
      (count, index) => count + (thread.pausesAtLeastMs[index] ?? 0),
    ),
    allocatedBytes: sum.allocatedBytes + thread.allocatedBytes,
  }));
}

/** A row's collections in one process (every thread), from the totals before and after it. */
export interface GcOverRow {
  kbAllocatedPerRequest: number;
  /** The same by thread (0 is the main thread; workers follow in the order they started). */
  kbAllocatedPerRequestByThread: [threadId: number, kb: number][];
  scavengesPerThousandRequests: number;
  meanScavengeMs: number;
  markCompacts: number;
  pausesAtLeastMs: number[];
}

export function gcOverRow(
  before: GcTotals[] | undefined,
  after: GcTotals[] | undefined,
  requests: number,
): GcOverRow | undefined {
  const end = summed(after);
  if (end === undefined) return undefined;
  const start = summed(before) ?? {
    ...end,
    scavenges: 0,
    scavengeMs: 0,
    markCompacts: 0,
    markCompactMs: 0,
    pausesAtLeastMs: end.pausesAtLeastMs.map(() => 0),
    allocatedBytes: 0,
  };
  const scavenges = end.scavenges - start.scavenges;
  const perRequest = Math.max(requests, 1);
  const byThread = (after ?? [])
    .map((thread): [number, number] => {
      const earlier = before?.find((candidate) => candidate.threadId === thread.threadId);
      const bytes = thread.allocatedBytes - (earlier?.allocatedBytes ?? 0);
      return [thread.threadId, bytes / 1024 / perRequest];
    })
    .sort(([a], [b]) => a - b);
  return {
    kbAllocatedPerRequest: (end.allocatedBytes - start.allocatedBytes) / 1024 / perRequest,
    kbAllocatedPerRequestByThread: byThread,
    scavengesPerThousandRequests: (1000 * scavenges) / perRequest,
    meanScavengeMs: scavenges === 0 ? 0 : (end.scavengeMs - start.scavengeMs) / scavenges,
    markCompacts: end.markCompacts - start.markCompacts,
    pausesAtLeastMs: end.pausesAtLeastMs.map(
      (count, index) => count - (start.pausesAtLeastMs[index] ?? 0),
    ),
  };
}

/** One line per process for the benchmark's output. */
export function describeGc(name: string, row: GcOverRow): string {
  const pauses = PAUSE_BUCKETS_MS.map(
    (bound, index) => `≥ ${bound} ms ${row.pausesAtLeastMs[index] ?? 0}`,
  ).join(', ');
  return (
    `${name} ${row.kbAllocatedPerRequest.toFixed(1)} KB allocated per request ` +
    `(by thread ${row.kbAllocatedPerRequestByThread.map(([id, kb]) => `${id}: ${kb.toFixed(1)}`).join(', ')}), ` +
    `${row.scavengesPerThousandRequests.toFixed(1)} scavenges per 1,000 requests ` +
    `(mean ${row.meanScavengeMs.toFixed(1)} ms), ${row.markCompacts} mark-compacts; pauses ${pauses}`
  );
}
