import type { EventStore, SqlClient } from '@vop/event-store';
import type { Bus, TopicSpec } from '@vop/messaging';

export type ComponentStatus = 'up' | 'down';

/** One service's dependencies as the admin sees them in GET /health/detailed. */
export interface ServiceHealth {
  service: string;
  status: 'healthy' | 'degraded';
  database: { status: ComponentStatus };
  kafka: { status: ComponentStatus; durable: boolean };
  /** Messages each consumer group has not committed yet; null when the bus did not answer (or cannot tell). */
  consumers: Array<{ group: string; lag: number | null }>;
  /** Events appended but not yet published, per outbox relay; null when unknown. */
  outbox: Array<{ name: string; lag: number | null }>;
}

export interface ServiceHealthSources {
  service: string;
  sql: SqlClient;
  bus: Bus;
  /** Topics the service uses: ensuring them proves the bus answers (a metadata call on Kafka). */
  topics: TopicSpec[];
  consumers: () => Array<{ groupId: string; topics: string[] }>;
  outboxes: Array<{ store: EventStore; relayName: string }>;
  timeoutMs?: number;
}

function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function orNull<T>(work: () => Promise<T>, timeoutMs: number): Promise<T | null> {
  try {
    return await withTimeout(work(), timeoutMs);
  } catch {
    return null;
  }
}

/** Events appended after the relay's checkpoint, i.e. not yet published to the bus. */
export async function outboxLag(store: EventStore, relayName: string): Promise<number> {
  const checkpoint = await store.loadCheckpoint(relayName);
  const { rows } = await store.sql.query<{ lag: string }>(
    `SELECT count(*)::text AS lag FROM "${store.schema}".messages WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)`,
    [checkpoint.transactionId, checkpoint.globalPosition.toString()],
  );
  return Number(rows[0]?.lag ?? 0);
}

/** Probes a service's database, bus, consumer lag and outbox lag, each bounded in time. */
export async function serviceHealth(sources: ServiceHealthSources): Promise<ServiceHealth> {
  const timeoutMs = sources.timeoutMs ?? 1000;
  const { bus } = sources;
  const [database, kafka, consumers, outbox] = await Promise.all([
    orNull(() => sources.sql.query('SELECT 1'), timeoutMs),
    orNull(() => bus.ensureTopics(sources.topics).then(() => true), timeoutMs),
    Promise.all(
      sources.consumers().map(async ({ groupId, topics }) => ({
        group: groupId,
        lag: bus.consumerLag
          ? await orNull(() => bus.consumerLag!(groupId, topics), timeoutMs)
          : null,
      })),
    ),
    Promise.all(
      sources.outboxes.map(async ({ store, relayName }) => ({
        name: relayName,
        lag: await orNull(() => outboxLag(store, relayName), timeoutMs),
      })),
    ),
  ]);
  const up = (value: unknown): ComponentStatus => (value === null ? 'down' : 'up');
  const healthy =
    database !== null &&
    kafka !== null &&
    (bus.consumerLag === undefined || consumers.every((consumer) => consumer.lag !== null)) &&
    outbox.every((relay) => relay.lag !== null);
  return {
    service: sources.service,
    status: healthy ? 'healthy' : 'degraded',
    database: { status: up(database) },
    kafka: { status: up(kafka), durable: bus.durable },
    consumers,
    outbox,
  };
}
