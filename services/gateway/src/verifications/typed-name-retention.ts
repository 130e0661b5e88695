import type { Logger } from '@vop/observability';
import { type SubjectKeyStore, TYPED_NAME_PREFIX } from '@vop/personal-data';

/**
 * Typed payee names are kept only for the retention: a job destroys the keys of the days that left the
 * window, which makes those names unreadable in every event and copy (crypto-shredding).
 */
export class TypedNameRetention {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly keys: SubjectKeyStore,
    private readonly retentionMs: number,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
    private readonly intervalMs = 60 * 60 * 1000,
  ) {}

  /** Destroys the day keys older than the retention measured from `now`; returns how many. */
  async enforce(now = this.clock()): Promise<number> {
    const destroyed = await this.keys.destroyOlderThan(
      TYPED_NAME_PREFIX,
      new Date(now.getTime() - this.retentionMs),
    );
    if (destroyed.length > 0)
      this.logger.info({ days: destroyed.length }, 'typed payee names past retention shredded');
    return destroyed.length;
  }

  start(): void {
    const run = () =>
      void this.enforce().catch((error: unknown) =>
        this.logger.warn({ err: error }, 'typed-name retention failed; will retry'),
      );
    run();
    this.timer = setInterval(run, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
