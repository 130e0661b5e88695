import { Kafka, logLevel as KafkaLogLevel, type Admin, type Producer } from 'kafkajs';
import type {
  Bus,
  OutgoingMessage,
  PartitionLag,
  SubscribeOptions,
  Subscription,
  TopicSpec,
} from '../types.js';
import { deliveryFor } from '../delivery.js';
import { retryRetriable } from './retry-retriable.js';
import { CoalescingPublisher } from './coalescing-publisher.js';
import { kafkaLogCreator } from './kafka-log.js';
import { KafkaSubscription } from './kafka-subscription.js';
import { keyPartitioner } from './key-partitioner.js';
import { publishTraced } from '../message-tracing.js';
import type { WireMessage } from './kafka-message.js';
import type { ValueCodec } from './value-codec.js';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  /** kafkajs's own log output (JSON lines on stderr). Default 'error'. */
  logLevel?: 'nothing' | 'error' | 'warn' | 'info';
  /** First wait before a message whose handler threw is delivered again; doubles up to 5 s. Default 100 ms. */
  redeliveryDelayMs?: number;
  /** How long `subscribe` waits for its consumer to join the group. Default 60 s. */
  joinTimeoutMs?: number;
  /**
   * How long the broker holds an idle consumer's fetch (kafka-subscription.ts); default 1 s. Longer
   * costs an idle process less and makes a consumer's stop and its notice of a rebalance slower.
   */
  fetchWaitMs?: number;
  /** Encodes values on publish and decodes them on consume (e.g. schemaRegistryCodec); default: JSON text. */
  valueCodec?: ValueCodec;
}

/**
 * An idle consumer fetches once a second: at 250 ms every idle consumer of every process cost a few
 * tenths of a percent of a core (a fetch costs the process a millisecond or two), at 20 ms 50 fetches a
 * second. A consumer's stop waits for its fetch in flight, so up to this long (bench/RESULTS.md §5).
 */
const DEFAULT_FETCH_WAIT_MS = 1_000;

const LOG_LEVELS = {
  nothing: KafkaLogLevel.NOTHING,
  error: KafkaLogLevel.ERROR,
  warn: KafkaLogLevel.WARN,
  info: KafkaLogLevel.INFO,
} as const;

/** The bus over Apache Kafka: one idempotent producer, one consumer per `subscribe`. */
export function createKafkaBus(options: KafkaBusOptions): Bus {
  return new KafkaBus(options);
}

class KafkaBus implements Bus {
  readonly durable = true;
  private readonly kafka: Kafka;
  private readonly publisher: CoalescingPublisher;
  private readonly subscriptions = new Set<KafkaSubscription>();
  /** Per topic: resolves once the last publish is encoded and queued, so encoding keeps publish order. */
  private readonly encoding = new Map<string, Promise<unknown>>();
  private producerConnection: Promise<Producer> | undefined;
  private adminConnection: Promise<Admin> | undefined;
  private closed = false;

  constructor(private readonly options: KafkaBusOptions) {
    if (options.brokers.length === 0) throw new Error('createKafkaBus needs at least one broker');
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      connectionTimeout: 3_000,
      requestTimeout: 30_000,
      logLevel: LOG_LEVELS[options.logLevel ?? 'error'],
      logCreator: kafkaLogCreator,
      retry: { initialRetryTime: 100, maxRetryTime: 5_000, retries: 8 },
    });
    this.publisher = new CoalescingPublisher(
      () => this.producer(),
      async () => {
        const current = this.producerConnection;
        this.producerConnection = undefined;
        await (await current?.catch(() => undefined))?.disconnect();
      },
    );
  }

  async ensureTopics(topics: TopicSpec[]): Promise<void> {
    this.assertOpen();
    const admin = await this.admin();
    const missing = async (): Promise<TopicSpec[]> => {
      const existing = new Set(await admin.listTopics());
      return topics.filter((topic) => !existing.has(topic.name));
    };
    const toCreate = await missing();
    if (toCreate.length === 0) return this.awaitLeaders(admin, topics);
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: toCreate.map((topic) => ({
          topic: topic.name,
          numPartitions: topic.partitions,
          ...(topic.replicationFactor === undefined
            ? {}
            : { replicationFactor: topic.replicationFactor }),
        })),
      });
    } catch (error) {
      // Another instance may have created some of them at the same moment.
      if ((await missing()).length > 0) throw error;
    }
    await this.awaitLeaders(admin, topics);
  }

  /** Topics another process is still creating exist before their partitions have leaders. */
  private async awaitLeaders(admin: Admin, topics: TopicSpec[]): Promise<void> {
    await retryRetriable(async () => {
      const metadata = await admin.fetchTopicMetadata({
        topics: topics.map((topic) => topic.name),
      });
      const leaderless = metadata.topics.some(({ partitions }) =>
        partitions.some((partition) => partition.leader < 0),
      );
      if (leaderless)
        throw Object.assign(new Error('partitions without a leader yet'), { retriable: true });
    });
  }

  publish(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('bus is closed'));
    return publishTraced(topic, messages, (traced) => this.send(topic, traced));
  }

  private send(topic: string, messages: OutgoingMessage[]): Promise<void> {
    const codec = this.options.valueCodec;
    if (codec === undefined) return this.publisher.publish(topic, messages);
    const previous = this.encoding.get(topic) ?? Promise.resolve();
    const queued = previous
      .catch(() => undefined)
      .then(async () => {
        const encoded: WireMessage[] = await Promise.all(
          messages.map(async (message) => ({
            ...message,
            value: await codec.encode(topic, message.value),
          })),
        );
        return { sent: this.publisher.publish(topic, encoded) };
      });
    this.encoding.set(topic, queued);
    return queued.then(({ sent }) => sent);
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    this.assertOpen();
    if (options.topics.length === 0) throw new Error('subscribe needs at least one topic');
    const delivery = deliveryFor(options);
    const subscription = new KafkaSubscription(this.kafka, () => this.admin(), options, delivery, {
      redeliveryDelayMs: this.options.redeliveryDelayMs ?? 100,
      maxRedeliveryDelayMs: 5_000,
      joinTimeoutMs: this.options.joinTimeoutMs ?? 60_000,
      fetchWaitMs: this.options.fetchWaitMs ?? DEFAULT_FETCH_WAIT_MS,
      ...(this.options.valueCodec && { valueCodec: this.options.valueCodec }),
    });
    await subscription.start();
    if (this.closed) {
      // close() ran while this consumer was joining and could not see it.
      await subscription.close();
      throw new Error('bus is closed');
    }
    this.subscriptions.add(subscription);
    return {
      close: async () => {
        this.subscriptions.delete(subscription);
        await subscription.close();
      },
    };
  }

  subscribedGroups(): Array<{ groupId: string; topics: string[] }> {
    const groups = new Map<string, Set<string>>();
    for (const subscription of this.subscriptions) {
      const topics = groups.get(subscription.groupId) ?? new Set<string>();
      for (const topic of subscription.topics) topics.add(topic);
      groups.set(subscription.groupId, topics);
    }
    return [...groups].map(([groupId, topics]) => ({ groupId, topics: [...topics] }));
  }

  async consumerLag(groupId: string, topics: string[]): Promise<number> {
    const partitions = await this.consumerLagByPartition(groupId, topics);
    return partitions.reduce((sum, { lag }) => sum + lag, 0);
  }

  async consumerLagByPartition(groupId: string, topics: string[]): Promise<PartitionLag[]> {
    const admin = await this.admin();
    const committed = await retryRetriable(() => admin.fetchOffsets({ groupId, topics }));
    const lags: PartitionLag[] = [];
    for (const { topic, partitions } of committed) {
      for (const end of await retryRetriable(() => admin.fetchTopicOffsets(topic))) {
        const offset = Number(partitions.find((p) => p.partition === end.partition)?.offset ?? -1);
        const lag = Math.max(0, Number(end.high) - (offset >= 0 ? offset : Number(end.low)));
        lags.push({ topic, partition: end.partition, lag });
      }
    }
    return lags;
  }

  /** Kafka keeps what was published; there is nothing in memory to wait for. */
  async settled(): Promise<void> {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const subscriptions = [...this.subscriptions];
    this.subscriptions.clear();
    await Promise.allSettled(subscriptions.map((subscription) => subscription.close()));
    const [producer, admin] = await Promise.allSettled([
      this.producerConnection,
      this.adminConnection,
    ]);
    await Promise.allSettled([
      producer.status === 'fulfilled' ? producer.value?.disconnect() : undefined,
      admin.status === 'fulfilled' ? admin.value?.disconnect() : undefined,
    ]);
  }

  private producer(): Promise<Producer> {
    this.producerConnection ??= this.connect(
      this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        // Kafka's own murmur2 on the key, so every client puts a key on the same partition.
        createPartitioner: keyPartitioner,
        allowAutoTopicCreation: false,
        // Bounded, so a publish to a missing topic fails instead of retrying for ever.
        retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: 8 },
      }),
      () => (this.producerConnection = undefined),
    );
    return this.producerConnection;
  }

  private admin(): Promise<Admin> {
    this.adminConnection ??= this.connect(
      this.kafka.admin(),
      () => (this.adminConnection = undefined),
    );
    return this.adminConnection;
  }

  /** Connects once; a failed connection is forgotten so the next call tries again. */
  private async connect<Client extends { connect(): Promise<void> }>(
    client: Client,
    forget: () => void,
  ): Promise<Client> {
    try {
      await client.connect();
      return client;
    } catch (error) {
      forget();
      throw error;
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('bus is closed');
  }
}
