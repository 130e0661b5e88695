import type { EventStore } from '@vop/event-store';
import type { Bus, TopicSpec } from '@vop/messaging';

export type ComponentStatus = 'up' | 'down';

export interface DetailedHealth {
  status: 'healthy' | 'degraded';
  version: string;
  uptime_seconds: number;
  components: {
    database: { status: ComponentStatus };
    bus: { status: ComponentStatus; durable: boolean };
    outbox: Array<{ name: string; status: ComponentStatus; lag: number | null }>;
  };
}

export interface DetailedHealthSources {
  version: string;
  startedAt: number;
  store: EventStore;
  bus: Bus;
  /** The topics this gateway uses: asking the bus to ensure them proves it answers (a metadata call on Kafka). */
  topics: TopicSpec[];
  /** Outbox relays of this store, by checkpoint name. */
  relayNames: string[];
  timeoutMs?: number;
}

function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function probe(work: () => Promise<unknown>, timeoutMs: number): Promise<ComponentStatus> {
  try {
    await withTimeout(work(), timeoutMs);
    return 'up';
  } catch {
    return 'down';
  }
}

/** Events appended after the relay's checkpoint, i.e. not yet published to the bus. */
async function outboxLag(store: EventStore, relayName: string): Promise<number> {
  const checkpoint = await store.loadCheckpoint(relayName);
  const { rows } = await store.sql.query<{ lag: string }>(
    `SELECT count(*)::text AS lag FROM "${store.schema}".messages WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)`,
    [checkpoint.transactionId, checkpoint.globalPosition.toString()],
  );
  return Number(rows[0]?.lag ?? 0);
}

/** The admin's view of the gateway's dependencies; each probe is bounded so the answer stays within the deadline. */
export async function detailedHealth(sources: DetailedHealthSources): Promise<DetailedHealth> {
  const timeoutMs = sources.timeoutMs ?? 1000;
  const [database, bus, outbox] = await Promise.all([
    probe(() => sources.store.sql.query('SELECT 1'), timeoutMs),
    probe(() => sources.bus.ensureTopics(sources.topics), timeoutMs),
    Promise.all(
      sources.relayNames.map(async (name) => {
        try {
          return {
            name,
            status: 'up' as const,
            lag: await withTimeout(outboxLag(sources.store, name), timeoutMs),
          };
        } catch {
          return { name, status: 'down' as const, lag: null };
        }
      }),
    ),
  ]);
  const allUp = database === 'up' && bus === 'up' && outbox.every((relay) => relay.status === 'up');
  return {
    status: allUp ? 'healthy' : 'degraded',
    version: sources.version,
    uptime_seconds: Math.floor((Date.now() - sources.startedAt) / 1000),
    components: {
      database: { status: database },
      bus: { status: bus, durable: sources.bus.durable },
      outbox,
    },
  };
}
