import type { Logger } from '@vop/observability';
import { isTransientError } from './transient-errors.js';

export interface StartWithRetryOptions {
  /** Starts the service; must be safe to call again after it failed (undo what it began). */
  start: () => Promise<void>;
  logger: Pick<Logger, 'warn'>;
  what: string;
  isTransient?: (error: unknown) => boolean;
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Gives up after this long (default: never; an orchestrator restarts a process that never gets ready). */
  giveUpAfterMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Starts a service, waiting out transient broker and database errors with a growing, jittered pause:
 * a process started beside a broker that is still electing leaders, or a database that is restarting,
 * stays not ready instead of dying. Non-transient errors are thrown at once.
 */
export async function startWithRetry(options: StartWithRetryOptions): Promise<number> {
  const isTransient = options.isTransient ?? isTransientError;
  const firstDelayMs = options.firstDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  const sleep =
    options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const startedAt = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      await options.start();
      return attempt;
    } catch (error) {
      const expired =
        options.giveUpAfterMs !== undefined && Date.now() - startedAt >= options.giveUpAfterMs;
      if (!isTransient(error) || expired) throw error;
      const ceiling = Math.min(firstDelayMs * 2 ** (attempt - 1), maxDelayMs);
      const delayMs = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
      options.logger.warn(
        { err: error, attempt, retryInMs: delayMs },
        `${options.what} could not start yet; retrying`,
      );
      await sleep(delayMs);
    }
  }
}
