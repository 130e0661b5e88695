import os from 'node:os';
import path from 'node:path';

/**
 * What bench/RESULTS.md records with every figure (date, machine, command, load average), printed by
 * each benchmark so a run can be pasted as it is. The load average is read at the start and at the end:
 * these machines are shared, and a busy neighbour shows there.
 */
export function runContext(): { header: string; footer: () => string } {
  const cpus = os.cpus();
  const script = path.relative(process.cwd(), process.argv[1] ?? '');
  const command = ['node', script, ...process.argv.slice(2)].join(' ');
  const load = () =>
    os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');
  const header = [
    `date          ${new Date().toISOString()}`,
    `machine       ${cpus.length} cores (${cpus[0]?.model ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}, node ${process.version}`,
    `command       ${command}`,
    `load average  ${load()} (start)`,
  ].join('\n');
  return { header, footer: () => `load average  ${load()} (end)` };
}
