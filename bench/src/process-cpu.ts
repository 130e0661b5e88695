import { readFileSync } from 'node:fs';

/**
 * CPU time (user + system, every thread) a process has used so far, in ms, from /proc (clock ticks of
 * 10 ms on Linux). Compared within one run, it is less noisy on a shared machine than throughput.
 */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
  return (Number(fields?.[11]) + Number(fields?.[12])) * 10;
}
