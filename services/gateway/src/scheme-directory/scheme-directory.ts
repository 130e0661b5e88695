import { SchemeDirectorySnapshot, z, type SchemeDirectoryVersion } from '@vop/contracts';
import { ConcurrencyError, type EventStore } from '@vop/event-store';
import { loopFailureLog } from '@vop/http';
import type { Logger } from '@vop/observability';
import { SchemeParticipantIndex, type DeploymentEnvironment } from './adherence.js';
import {
  decideSchemeDirectory,
  SCHEME_DIRECTORY_STREAM,
  type SchemeDirectoryLoaded,
} from './decider.js';

const DEFAULT_REFRESH_MS = 5_000;

/** SchemeDirectoryLoaded as stored (the event stays in the gateway: no contract in packages/contracts). */
const StoredDirectoryLoaded = z.object({
  version: z.number().int().positive(),
  snapshot: SchemeDirectorySnapshot,
  loadedAt: z.string(),
  loadedBy: z.string(),
});
const MAX_ATTEMPTS = 3;

function versionOf(event: SchemeDirectoryLoaded['data']): SchemeDirectoryVersion {
  return {
    version: event.version,
    snapshotId: event.snapshot.snapshotId,
    ...(event.snapshot.publishedAt !== undefined && { publishedAt: event.snapshot.publishedAt }),
    loadedAt: event.loadedAt,
    loadedBy: event.loadedBy,
    participants: event.snapshot.participants.length,
  };
}

/**
 * The scheme directory of this deployment, event-sourced in the gateway's event store (stream
 * `scheme-directory`, one SchemeDirectoryLoaded per snapshot) and held in memory, indexed for the
 * deployment's environment. Every gateway instance re-reads the last snapshot when the stream's
 * version moves (checked every few seconds), so no request waits on the database for it.
 */
export class SchemeDirectory {
  private index: SchemeParticipantIndex | undefined;
  private loaded: SchemeDirectoryVersion | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      store: EventStore;
      environment: DeploymentEnvironment;
      logger: Logger;
      refreshMs?: number;
    },
  ) {}

  get environment(): DeploymentEnvironment {
    return this.options.environment;
  }

  /** The participants of this environment, or undefined while no directory has been loaded. */
  current(): SchemeParticipantIndex | undefined {
    return this.index;
  }

  version(): SchemeDirectoryVersion | undefined {
    return this.loaded;
  }

  /** Appends the snapshot as the next version and serves it at once on this instance. */
  async load(input: {
    snapshot: SchemeDirectorySnapshot;
    loadedBy: string;
    now: Date;
    expectedVersion?: number;
  }): Promise<SchemeDirectoryVersion> {
    const { store } = this.options;
    for (let attempt = 1; ; attempt++) {
      try {
        const [event] = await store.sql.transaction(async (tx) => {
          const version = await store.streamVersion(SCHEME_DIRECTORY_STREAM, { tx });
          const events = decideSchemeDirectory(
            {
              type: 'LoadSchemeDirectory',
              snapshot: input.snapshot,
              now: input.now.toISOString(),
              loadedBy: input.loadedBy,
              ...(input.expectedVersion !== undefined && {
                expectedVersion: input.expectedVersion,
              }),
            },
            { version },
          );
          await store.append(
            SCHEME_DIRECTORY_STREAM,
            events.map((each) => ({ type: each.type, data: each.data })),
            { expectedVersion: version, tx },
          );
          return events;
        });
        if (event === undefined) throw new Error('a directory load decided no event');
        this.apply(event.data);
        return versionOf(event.data);
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt < MAX_ATTEMPTS) continue;
        throw error;
      }
    }
  }

  /** Reads the latest snapshot when the stream has moved past the one held. */
  async refresh(): Promise<void> {
    const { store } = this.options;
    const version = await store.streamVersion(SCHEME_DIRECTORY_STREAM);
    if (version === 0 || version === this.loaded?.version) return;
    const last = await store.readLastEvent(SCHEME_DIRECTORY_STREAM);
    if (last === undefined) return;
    this.apply(StoredDirectoryLoaded.parse(last.data));
  }

  async start(): Promise<void> {
    await this.refresh();
    const every = this.options.refreshMs ?? DEFAULT_REFRESH_MS;
    const refreshFailed = loopFailureLog(
      this.options.logger,
      'scheme directory refresh failed; retrying',
    );
    this.timer = setInterval(() => {
      this.refresh().catch(refreshFailed);
    }, every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private apply(data: SchemeDirectoryLoaded['data']): void {
    if (this.loaded !== undefined && data.version <= this.loaded.version) return;
    this.index = new SchemeParticipantIndex(data.version, data.snapshot, this.options.environment);
    this.loaded = versionOf(data);
    this.options.logger.info(
      { version: data.version, participants: this.index.size },
      'scheme directory loaded',
    );
  }
}
