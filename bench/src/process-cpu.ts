import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * CPU time (user + system, every thread) a process has used so far, in ms, from /proc (clock ticks of
 * 10 ms on Linux). Compared within one run, it is less noisy on a shared machine than throughput.
 */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
  return (Number(fields?.[11]) + Number(fields?.[12])) * 10;
}

/**
 * Waits until a 5 s slice costs the processes together under `share` of a core (their start-up, or the
 * work an earlier phase left them), at most `timeoutMs`. Returns the seconds it waited.
 */
export async function untilQuiet(
  pids: number[],
  { share = 0.05, timeoutMs = 180_000 }: { share?: number; timeoutMs?: number } = {},
): Promise<number> {
  const SLICE_MS = 5_000;
  const started = Date.now();
  const total = () => pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  for (let before = total(); Date.now() - started < timeoutMs;) {
    await sleep(SLICE_MS);
    const now = total();
    if (now - before < share * SLICE_MS) break;
    before = now;
  }
  return (Date.now() - started) / 1000;
}

export interface CpuWaitMs {
  /** Every thread of the process that is still running. */
  all: number;
  /** The main thread alone (its thread id is the process id). */
  main: number;
}

/**
 * Time a process's threads have waited for a CPU so far (runnable, not running), in ms, from each
 * thread's /proc schedstat (nanoseconds). On a shared box this is what turns into latency: a request
 * waits while the thread that would serve it waits its turn. Threads that ended are not counted;
 * undefined where the kernel keeps no schedstat.
 */
export function processCpuWaitMs(pid: number): CpuWaitMs | undefined {
  const waitedMs = (tid: string): number => {
    const fields = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
    return Number(fields[1]) / 1e6;
  };
  try {
    let all = 0;
    let main: number | undefined;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const waited = waitedMs(tid);
        all += waited;
        if (tid === String(pid)) main = waited;
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return main === undefined ? undefined : { all, main };
  } catch {
    return undefined;
  }
}
