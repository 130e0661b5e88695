export interface OutgoingMessage {
  /** Partitioning key: messages with one key keep their order. */
  key: string;
  value: string;
  headers?: Record<string, string>;
}

export interface IncomingMessage {
  topic: string;
  partition: number;
  /** Offset within the partition, as a decimal string. */
  offset: string;
  key: string;
  value: string;
  headers: Record<string, string>;
}

export interface PartitionLag {
  topic: string;
  partition: number;
  lag: number;
}

export interface TopicSpec {
  name: string;
  partitions: number;
  /** Kafka only; default: the broker's default.replication.factor. */
  replicationFactor?: number;
}

/** Handles one message; see `MessageSubscribeOptions`. */
export type MessageHandler = (message: IncomingMessage) => Promise<void>;

/** Handles 1..maxBatchSize consecutive messages of one partition; see `BatchSubscribeOptions`. */
export type BatchHandler = (messages: IncomingMessage[]) => Promise<void>;

/** What every subscription takes, whichever way its messages are handed over. */
export interface CommonSubscribeOptions {
  /** Consumers sharing a groupId split the partitions; each group sees every message. */
  groupId: string;
  topics: string[];
  /** Where a group with no committed offset starts. Default true (earliest). */
  fromBeginning?: boolean;
  /**
   * Start at the current end of every partition, whatever the group committed before: for a group of
   * one member whose earlier messages are of no use to a new subscription (a gateway's waiters: no
   * caller waits from before it subscribed). Overrides `fromBeginning`.
   */
  startAtEnd?: boolean;
  /** How many partitions are handled at once by this consumer (default 1). */
  partitionsConsumedConcurrently?: number;
  /**
   * Told about every handler failure before the message (or batch) is delivered again (for logs and
   * metrics; it must not throw). `message` is the failed message, or the first message of the failed
   * batch; `attempt` counts the failed deliveries of it, from 1.
   */
  onHandlerError?: (error: unknown, message: IncomingMessage, attempt: number) => void;
  /**
   * Told whenever it changes whether this consumer holds every partition of its topics (the group's
   * only member): true once a join gave it all of them; false as soon as a rebalance starts, when the
   * consumer is replaced after a crash, and when it stops. Starts false. A process may then skip work
   * that only matters while another member handles some of the messages (the gateway's waiters).
   */
  onHoldsEveryPartition?: (holdsEvery: boolean) => void;
}

/** One handler call per message. */
export interface MessageSubscribeOptions extends CommonSubscribeOptions {
  /**
   * Called once per message, in order per partition. The offset is committed only after it resolves;
   * if it throws, the same message is delivered again (after a short backoff), and later messages of
   * that partition wait.
   */
  handler: MessageHandler;
  batchHandler?: never;
  maxBatchSize?: never;
  lingerMs?: never;
}

/** One handler call per batch: for consumers that apply many messages in one transaction. */
export interface BatchSubscribeOptions extends CommonSubscribeOptions {
  /**
   * Called with 1..maxBatchSize messages of one partition, in offset order and consecutive, starting
   * right after the last batch this group handled there. Whatever is available is delivered at once
   * (never waits to fill a batch; a lone message is a batch of 1). Offsets up to the batch's last
   * message are committed only after it resolves; if it throws, the same batch is delivered again
   * (after a short backoff), and later messages of that partition wait.
   */
  batchHandler: BatchHandler;
  /** Most messages in one call; a positive integer, default 500. */
  maxBatchSize?: number;
  /**
   * Kafka: the batches of partitions fetched at once that are ready while a call runs are handed over
   * together in the next call (each partition's messages still consecutive and in order), so a consumer
   * pays one transaction for many partitions' small batches. A failed merged call is retried partition
   * by partition, so one partition's failing message never holds the others back. Default false.
   */
  mergePartitions?: boolean;
  /**
   * Lets messages gather for read models nobody waits on (analytics): each delivery costs the
   * subscriber a transaction whatever its size. In process, a partition is delivered to it at most once
   * per `lingerMs` (the first message after a quiet spell at once, a backlog that fills deliveries
   * without a wait); on Kafka the broker holds each fetch until `lingerMs` passed or a fetch's worth
   * (1 MiB) arrived. Default 0: at once.
   */
  lingerMs?: number;
  handler?: never;
}

/** Exactly one of `handler` and `batchHandler`; `subscribe` rejects anything else. */
export type SubscribeOptions = MessageSubscribeOptions | BatchSubscribeOptions;

export interface Subscription {
  close(): Promise<void>;
}

export interface Bus {
  /** false for the in-process bus: messages live only in memory. */
  readonly durable: boolean;
  /** Creates the topics that do not exist yet (idempotent). */
  ensureTopics(topics: TopicSpec[]): Promise<void>;
  /** Resolves once the messages are stored (Kafka: acknowledged by the broker, acks=-1). */
  publish(topic: string, messages: OutgoingMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * Resolves when every message published before the call has been handled successfully by every
   * group subscribed to its topic. In-process: real; Kafka: resolves at once (the broker keeps them).
   */
  settled(): Promise<void>;
  /**
   * Messages of `topics` the group has not committed yet (its consumer lag), summed over partitions;
   * a partition the group never committed counts from its first retained message. Both adapters have
   * it; optional so that a wrapper need not.
   */
  consumerLag?(groupId: string, topics: string[]): Promise<number>;
  /** The groups subscribed through this bus and their topics (for the consumer_lag metric). */
  subscribedGroups?(): Array<{ groupId: string; topics: string[] }>;
  /** The same, per partition (for the consumer_lag metric). */
  consumerLagByPartition?(groupId: string, topics: string[]): Promise<PartitionLag[]>;
  close(): Promise<void>;
}
