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

export interface TopicSpec {
  name: string;
  partitions: number;
  /** Kafka only; default: the broker's default.replication.factor. */
  replicationFactor?: number;
}

export interface SubscribeOptions {
  /** Consumers sharing a groupId split the partitions; each group sees every message. */
  groupId: string;
  topics: string[];
  /** Where a group with no committed offset starts. Default true (earliest). */
  fromBeginning?: boolean;
  /**
   * Called once per message, in order per partition. The offset is committed only after it resolves;
   * if it throws, the same message is delivered again (after a short backoff), and later messages of
   * that partition wait.
   */
  handler: (message: IncomingMessage) => Promise<void>;
  /** How many partitions are handled at once by this consumer (default 1). */
  partitionsConsumedConcurrently?: number;
  /**
   * Told about every handler failure before the message is delivered again (for logs and metrics;
   * it must not throw). `attempt` counts the failed deliveries of this message, from 1.
   */
  onHandlerError?: (error: unknown, message: IncomingMessage, attempt: number) => void;
}

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
  close(): Promise<void>;
}
