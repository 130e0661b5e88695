import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { GCProfiler } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { GC_DIR_VARIABLE, PAUSE_BUCKETS_MS, type GcTotals } from './gc-totals.js';

/**
 * Loaded into every service process and thread with `--import` when the benchmark runs with `--gc`
 * (http-verify.bench.ts): from V8's GCProfiler, counts each collection's pause and the bytes allocated
 * between collections, and writes the running totals to `$VOP_BENCH_GC_DIR/<pid>-<thread>.json` every
 * second, for the benchmark to take differences over a row (gc-totals.ts). Bytes per request move with
 * the machine's speed too (larger rounds on a slower machine), so builds compare in alternating pairs.
 */
const directory = process.env[GC_DIR_VARIABLE];
if (directory !== undefined) {
  const totals: GcTotals = {
    pid: process.pid,
    threadId,
    scavenges: 0,
    scavengeMs: 0,
    markCompacts: 0,
    markCompactMs: 0,
    pausesAtLeastMs: PAUSE_BUCKETS_MS.map(() => 0),
    allocatedBytes: 0,
  };
  const file = path.join(directory, `${process.pid}-${threadId}.json`);
  let heldAfterLast: number | undefined;
  let profiler = new GCProfiler();
  profiler.start();
  const flush = (): void => {
    const { statistics } = profiler.stop();
    profiler = new GCProfiler();
    profiler.start();
    for (const collection of statistics) {
      // The pause as the runtime measures it: wall time of the thread, so a busy box stretches it too.
      const pauseMs = collection.cost / 1000;
      if (collection.gcType === 'Scavenge') {
        totals.scavenges++;
        totals.scavengeMs += pauseMs;
      } else if (collection.gcType === 'MarkSweepCompact') {
        totals.markCompacts++;
        totals.markCompactMs += pauseMs;
      }
      PAUSE_BUCKETS_MS.forEach((bound, index) => {
        if (pauseMs >= bound) totals.pausesAtLeastMs[index]!++;
      });
      // Allocated: what the heap held before this collection less what it held after the one before.
      const before = collection.beforeGC.heapStatistics.usedHeapSize;
      if (heldAfterLast !== undefined) totals.allocatedBytes += Math.max(0, before - heldAfterLast);
      heldAfterLast = collection.afterGC.heapStatistics.usedHeapSize;
    }
    writeFileSync(file, JSON.stringify(totals));
  };
  setInterval(flush, 1000).unref();
}
