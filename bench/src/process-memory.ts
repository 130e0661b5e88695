import { readdir, readFile } from 'node:fs/promises';

/** Resident memory of a process (or of a server's processes together), in MiB. */
export interface Memory {
  /** VmHWM: the most it was resident at once (undefined for a group of processes: none is kept). */
  peak: number | undefined;
  /** VmRSS now. */
  current: number;
}

const kib = (text: string, field: string): number =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);

/** Peak (VmHWM) and current (VmRSS) resident set of one process, from /proc. */
export async function memoryOf(pid: number): Promise<Memory> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return { peak: kib(status, 'VmHWM') / 1024, current: kib(status, 'VmRSS') / 1024 };
}

/**
 * A multi-process server (PostgreSQL: the postmaster and its backends) now: the sum of each process's
 * proportional set (Pss), so shared buffers mapped by every backend count once.
 */
export async function processTreeMemory(rootPid: number): Promise<Memory & { processes: number }> {
  const pids = [rootPid, ...(await childrenOf(rootPid))];
  let current = 0;
  let processes = 0;
  for (const pid of pids) {
    try {
      const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
      current += kib(rollup, 'Pss') / 1024;
      processes++;
    } catch {
      // The backend ended between the listing and the read.
    }
  }
  return { peak: undefined, current, processes };
}

async function childrenOf(parent: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) children.push(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return children;
}
