import os from 'node:os';
import type { Logger } from '@vop/observability';

/**
 * Lowers a background process's OS scheduling priority to `nice` (never raises it: a negative nice
 * needs privileges we do not ask for). On a machine whose cores the single checks share with a batch,
 * the kernel then gives the batch's processes the CPU the single checks leave. Returns the priority
 * the process has afterwards.
 */
export function lowerProcessPriority(nice: number, logger: Logger, pid = 0): number {
  const current = os.getPriority(pid);
  if (nice <= current) return current;
  try {
    os.setPriority(pid, nice);
    logger.info({ nice }, 'background process: scheduling priority lowered');
  } catch (error) {
    logger.warn({ err: error, nice }, 'could not lower the scheduling priority; running as is');
  }
  return os.getPriority(pid);
}
