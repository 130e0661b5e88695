import { SchemeDirectorySnapshot, z, type SchemeDirectoryVersion } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import type { Logger } from '@vop/observability';
import { SchemeParticipantIndex, type DeploymentEnvironment } from './adherence.js';
import {
  decideSchemeDirectory,
  SCHEME_DIRECTORY_STREAM,
  type SchemeDirectoryLoaded,
} from './decider.js';
import { LatestLoad } from './latest-load.js';

/** SchemeDirectoryLoaded as stored (the event stays in the gateway: no contract in packages/contracts). */
const StoredDirectoryLoaded = z.object({
  version: z.number().int().positive(),
  snapshot: SchemeDirectorySnapshot,
  loadedAt: z.string(),
  loadedBy: z.string(),
});

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

interface HeldDirectory {
  index: SchemeParticipantIndex;
  version: SchemeDirectoryVersion;
}

/**
 * The scheme directory of this deployment (stream `scheme-directory`, one SchemeDirectoryLoaded per
 * snapshot), held in memory indexed for the deployment's environment (latest-load.ts).
 */
export class SchemeDirectory {
  private readonly latest: LatestLoad<SchemeDirectoryLoaded['data'], HeldDirectory>;

  constructor(
    private readonly options: {
      store: EventStore;
      environment: DeploymentEnvironment;
      logger: Logger;
      refreshMs?: number;
    },
  ) {
    this.latest = new LatestLoad({
      store: options.store,
      stream: SCHEME_DIRECTORY_STREAM,
      name: 'scheme directory',
      parse: (data) => StoredDirectoryLoaded.parse(data),
      hold: (data) => ({
        index: new SchemeParticipantIndex(data.version, data.snapshot, options.environment),
        version: versionOf(data),
      }),
      logger: options.logger,
      ...(options.refreshMs !== undefined && { refreshMs: options.refreshMs }),
    });
  }

  get environment(): DeploymentEnvironment {
    return this.options.environment;
  }

  /** The participants of this environment, or undefined while no directory has been loaded. */
  current(): SchemeParticipantIndex | undefined {
    return this.latest.current()?.index;
  }

  version(): SchemeDirectoryVersion | undefined {
    return this.latest.current()?.version;
  }

  /** Appends the snapshot as the next version and serves it at once on this instance. */
  async load(input: {
    snapshot: SchemeDirectorySnapshot;
    loadedBy: string;
    now: Date;
    expectedVersion?: number;
  }): Promise<SchemeDirectoryVersion> {
    const loaded = await this.latest.load((version) =>
      decideSchemeDirectory(
        {
          type: 'LoadSchemeDirectory',
          snapshot: input.snapshot,
          now: input.now.toISOString(),
          loadedBy: input.loadedBy,
          ...(input.expectedVersion !== undefined && { expectedVersion: input.expectedVersion }),
        },
        { version },
      ),
    );
    return versionOf(loaded);
  }

  /** Reads the latest snapshot when the stream has moved past the one held. */
  refresh(): Promise<void> {
    return this.latest.refresh();
  }

  start(): Promise<void> {
    return this.latest.start();
  }

  stop(): Promise<void> {
    return this.latest.stop();
  }
}
