import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { GCProfiler } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { GC_DIR_VARIABLE, PAUSE_BUCKETS_MS, type GcTotals } from './gc-totals.js';

/**
 * Loaded into every service process and thread with `--import` when the benchmark runs with `--gc`
 * (http-verify.bench.ts): counts each GC pause and the bytes allocated between collections, and writes
 * the running totals to `$VOP_BENCH_GC_DIR/<pid>-<thread>.json` every second, for the benchmark to
 * take differences over a row (gc-totals.ts). Bytes allocated per request do not move with the
 * machine's speed, so two builds compare on them where CPU time per request is noisy.
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

  // Pauses as the runtime reports them: wall time of the thread, so a busy box stretches them too.
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind === 1 /* NODE_PERFORMANCE_GC_MINOR */) {
        totals.scavenges++;
        totals.scavengeMs += entry.duration;
      } else if (kind === 4 /* NODE_PERFORMANCE_GC_MAJOR */) {
        totals.markCompacts++;
        totals.markCompactMs += entry.duration;
      }
      PAUSE_BUCKETS_MS.forEach((bound, index) => {
        if (entry.duration >= bound) totals.pausesAtLeastMs[index]!++;
      });
    }
  }).observe({ entryTypes: ['gc'] });

  // Allocated = what the heap held before each collection less what it held after the one before.
  let heldAfterLast: number | undefined;
  let profiler = new GCProfiler();
  profiler.start();
  const flush = (): void => {
    const { statistics } = profiler.stop();
    profiler = new GCProfiler();
    profiler.start();
    for (const collection of statistics) {
      const before = collection.beforeGC.heapStatistics.usedHeapSize;
      if (heldAfterLast !== undefined) totals.allocatedBytes += Math.max(0, before - heldAfterLast);
      heldAfterLast = collection.afterGC.heapStatistics.usedHeapSize;
    }
    writeFileSync(
      file,
      JSON.stringify({ ...totals, at: performance.timeOrigin + performance.now() }),
    );
  };
  setInterval(flush, 1000).unref();
}
