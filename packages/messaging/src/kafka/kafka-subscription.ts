import { deliverTraced } from '../message-tracing.js';
import type { Admin, Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { abortableDelay } from '../abortable-delay.js';
import { reportHandlerError, type Delivery } from '../delivery.js';
import type { IncomingMessage, SubscribeOptions, Subscription } from '../types.js';
import { toIncomingMessage } from './kafka-message.js';
import type { ValueCodec } from './value-codec.js';
import { OffsetCommitter } from './offset-committer.js';
import { PartitionMerger } from './partition-merger.js';
import { retryRetriable } from './retry-retriable.js';
import {
  endOffsets,
  endOffsetsWithoutCommit,
  partitionKey,
  type StartOffsets,
} from './start-offsets.js';

export interface KafkaSubscriptionSettings {
  /** First wait before a failed message is delivered again; doubles per failure up to the maximum. */
  redeliveryDelayMs: number;
  maxRedeliveryDelayMs: number;
  /** How long `subscribe` waits for the consumer to join its group. */
  joinTimeoutMs: number;
  /** How long the broker holds a fetch that finds nothing (a lingering one: at least this long). */
  fetchWaitMs: number;
  valueCodec?: ValueCodec;
}

/**
 * Longest a handled message stays uncommitted on the happy path: what a crash redelivers at most (every
 * consumer is idempotent). At 100 ms a busy consumer committed 10 times a second, each a request the
 * broker writes to its offsets log; stopping and failing still commit at once.
 */
const COMMIT_INTERVAL_MS = 500;

/** A lingering subscription's fetch is answered at its linger or once this much arrived (types.ts `lingerMs`). */
const LINGERING_FETCH_MIN_BYTES = 1024 * 1024;

/**
 * kafkajs heartbeats between fetches (and while a failing message is retried) once this much passed:
 * about once per idle fetch, a small request in the same wake-up. It is how soon a member notices a
 * rebalance, and so how long another member's join waits for it.
 */
const HEARTBEAT_INTERVAL_MS = 1_000;
/**
 * At least three of an idle consumer's heartbeats (one per fetch) fit in a session, so a late one does
 * not end the membership; a member that died is noticed after this long.
 */
const sessionTimeoutMs = (fetchWaitMs: number): number => Math.max(10_000, 3 * fetchWaitMs);

/**
 * One kafkajs consumer for one `subscribe` call. Offsets are committed only for messages whose
 * handler resolved; a failing message is retried in place (the rest of its partition waits) while
 * the consumer keeps heartbeating, so a rebalance still takes the partition away cleanly.
 */
export class KafkaSubscription implements Subscription {
  private consumer: Consumer | undefined;
  private readonly stopping = new AbortController();
  private readonly committer = new OffsetCommitter(COMMIT_INTERVAL_MS);
  private startOffsets: StartOffsets = new Map();
  private closing: Promise<void> | undefined;
  /** Set when the subscriber lets partitions share a handler call (`mergePartitions`). */
  private readonly merger: PartitionMerger | undefined;
  /** What `onHoldsEveryPartition` was told last. */
  private holdsEvery = false;
  /** Counts joins, rebalances and stops: a judgement of an assignment that is no longer current is dropped. */
  private assignmentTurn = 0;

  get groupId(): string {
    return this.options.groupId;
  }

  get topics(): readonly string[] {
    return this.options.topics;
  }

  constructor(
    private readonly kafka: Kafka,
    private readonly admin: () => Promise<Admin>,
    private readonly options: SubscribeOptions,
    private readonly delivery: Delivery,
    private readonly settings: KafkaSubscriptionSettings,
  ) {
    const merge = 'mergePartitions' in options && options.mergePartitions === true;
    this.merger = merge
      ? new PartitionMerger(
          (messages) => deliverTraced(delivery.deliver, messages),
          delivery.maxBatchSize,
        )
      : undefined;
  }

  /** Resolves once the consumer has joined its group and knows where to start. */
  async start(): Promise<void> {
    if (this.options.startAtEnd === true) {
      this.startOffsets = await endOffsets(await this.admin(), this.options.topics);
    } else if ((this.options.fromBeginning ?? true) === false) {
      this.startOffsets = await endOffsetsWithoutCommit(
        await this.admin(),
        this.options.groupId,
        this.options.topics,
      );
    }
    await this.startConsumer();
  }

  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    this.stopping.abort();
    this.assignmentLost();
    const consumer = this.consumer;
    this.consumer = undefined;
    await this.committer.commitNow().catch(() => undefined);
    this.committer.detach();
    await consumer?.disconnect();
  }

  private async startConsumer(): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId: this.options.groupId,
      sessionTimeout: sessionTimeoutMs(this.settings.fetchWaitMs),
      rebalanceTimeout: 30_000,
      heartbeatInterval: HEARTBEAT_INTERVAL_MS,
      ...(this.delivery.lingerMs > 0
        ? {
            // A lingering subscriber waits at least as long as any idle fetch (its fetches cost most).
            maxWaitTimeInMs: Math.ceil(Math.max(this.delivery.lingerMs, this.settings.fetchWaitMs)),
            minBytes: LINGERING_FETCH_MIN_BYTES,
          }
        : // A long poll: the broker answers as soon as one byte is there, so the wait bounds only an
          // idle consumer's fetches; kafkajs fetches again once the last fetch's batches are handled.
          { maxWaitTimeInMs: this.settings.fetchWaitMs, minBytes: 1 }),
      allowAutoTopicCreation: false,
      retry: { initialRetryTime: 100, maxRetryTime: 5_000, retries: 10 },
    });
    this.consumer = consumer;

    let hasJoined = false;
    let joinTimer: NodeJS.Timeout | undefined;
    const joined = new Promise<void>((resolve, reject) => {
      joinTimer = setTimeout(
        () =>
          reject(
            new Error(
              `consumer of group ${this.options.groupId} did not join within ${this.settings.joinTimeoutMs} ms`,
            ),
          ),
        this.settings.joinTimeoutMs,
      );
      consumer.on(consumer.events.GROUP_JOIN, (event) => {
        // Runs inside kafkajs's join, before its first fetch: seeks set here decide where that fetch starts.
        this.seekToStartOffsets(consumer, event.payload.memberAssignment);
        void this.judgeAssignment(event.payload.memberAssignment);
        hasJoined = true;
        resolve();
      });
      consumer.on(consumer.events.REBALANCING, () => this.assignmentLost());
      consumer.on(consumer.events.CRASH, (event) => {
        this.assignmentLost();
        if (event.payload.restart || this.stopping.signal.aborted) return;
        if (hasJoined) void this.replaceCrashedConsumer(consumer);
        else reject(event.payload.error);
      });
    });
    // Settled below; this only keeps an early rejection from counting as unhandled meanwhile.
    joined.catch(() => undefined);

    try {
      await consumer.connect();
      await consumer.subscribe({
        topics: this.options.topics,
        fromBeginning: this.options.fromBeginning ?? true,
      });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 1,
        eachBatch: (payload) => this.handleBatch(payload),
      });
      await joined;
    } catch (error) {
      if (this.consumer === consumer) this.consumer = undefined;
      await consumer.disconnect().catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(joinTimer);
    }
  }

  private seekToStartOffsets(consumer: Consumer, assignment: Record<string, number[]>): void {
    if (this.startOffsets.size === 0) return;
    for (const [topic, partitions] of Object.entries(assignment)) {
      for (const partition of partitions) {
        const offset = this.startOffsets.get(partitionKey(topic, partition));
        if (offset !== undefined) consumer.seek({ topic, partition, offset });
      }
    }
    // Only the first join: later joins resume from committed offsets.
    this.startOffsets = new Map();
  }

  /** A rebalance began, or the consumer crashed or stops: it may no longer hold every partition. */
  private assignmentLost(): void {
    this.assignmentTurn++;
    this.tellHoldsEvery(false);
  }

  private tellHoldsEvery(holdsEvery: boolean): void {
    if (holdsEvery === this.holdsEvery) return;
    this.holdsEvery = holdsEvery;
    this.options.onHoldsEveryPartition?.(holdsEvery);
  }

  /**
   * After a join: whether the assignment covers every partition the broker lists for the topics. Until
   * that is known the last answer stands (a rebalance meanwhile makes it false); if asking fails, false.
   */
  private async judgeAssignment(assignment: Record<string, number[]>): Promise<void> {
    const turn = ++this.assignmentTurn;
    if (this.options.onHoldsEveryPartition === undefined) return;
    try {
      const admin = await this.admin();
      const { topics } = await retryRetriable(() =>
        admin.fetchTopicMetadata({ topics: [...this.options.topics] }),
      );
      const holdsEvery = topics.every(({ name, partitions }) => {
        const mine = new Set(assignment[name] ?? []);
        return partitions.every(({ partitionId }) => mine.has(partitionId));
      });
      if (turn === this.assignmentTurn && !this.stopping.signal.aborted)
        this.tellHoldsEvery(holdsEvery);
    } catch {
      if (turn === this.assignmentTurn) this.tellHoldsEvery(false);
    }
  }

  /** kafkajs gave up on this consumer (a non-retriable error): start a fresh one after a pause. */
  private async replaceCrashedConsumer(crashed: Consumer): Promise<void> {
    if (this.consumer === crashed) this.consumer = undefined;
    this.committer.detach();
    await crashed.disconnect().catch(() => undefined);
    let delayMs = this.settings.redeliveryDelayMs;
    while (!this.stopping.signal.aborted && this.consumer === undefined) {
      await abortableDelay(delayMs, this.stopping.signal);
      if (this.stopping.signal.aborted) return;
      try {
        await this.startConsumer();
      } catch {
        delayMs = Math.min(delayMs * 2, this.settings.maxRedeliveryDelayMs);
      }
    }
    // close() may have run while a replacement was starting.
    if (this.stopping.signal.aborted) await this.consumer?.disconnect().catch(() => undefined);
  }

  /**
   * Hands a fetched batch to the handler in chunks of up to maxBatchSize (1 for a per-message
   * handler). A failing chunk is retried in place, so the rest of its partition waits behind it.
   */
  private async handleBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const shouldStop = (): boolean => this.stopping.signal.aborted || !isRunning() || isStale();
    const { deliver, maxBatchSize } = this.delivery;
    const fetched = batch.messages;
    this.committer.attach(payload);
    let failure: unknown;
    try {
      for (let start = 0; start < fetched.length; start += maxBatchSize) {
        if (shouldStop()) break;
        const end = Math.min(start + maxBatchSize, fetched.length);
        const chunk: IncomingMessage[] = [];
        for (let index = start; index < end; index++) {
          const message = toIncomingMessage(batch.topic, batch.partition, fetched[index]!);
          const { valueCodec } = this.settings;
          const raw = fetched[index]!.value;
          const decoded = valueCodec && raw ? await valueCodec.decode(raw) : undefined;
          chunk.push(decoded === undefined ? message : { ...message, value: decoded });
        }
        let handled = false;
        for (let attempt = 1; !handled; attempt++) {
          try {
            // A merged call that failed is retried alone: another partition's failure is not this one's.
            if (this.merger !== undefined && attempt === 1) await this.merger.deliver(chunk);
            else await deliverTraced(deliver, chunk);
            handled = true;
          } catch (error) {
            reportHandlerError(this.options.onHandlerError, error, chunk, attempt);
            // Commit what succeeded first, so whoever takes this partition over starts at this chunk.
            await this.committer.commitNow();
            await abortableDelay(this.redeliveryDelay(attempt), this.stopping.signal);
            if (shouldStop()) return;
            // Throws when the group rebalances; kafkajs then rejoins and this chunk is fetched again.
            await heartbeat();
          }
        }
        resolveOffset(fetched[end - 1]!.offset);
        await heartbeat();
        await this.committer.commitSoon();
      }
    } catch (error) {
      failure = error;
    } finally {
      try {
        // Stopping or failing: commit at once, whoever reads this partition next starts right after it.
        if (failure !== undefined || shouldStop()) await this.committer.commitNow();
        else await this.committer.commitSoon();
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  }

  private redeliveryDelay(attempt: number): number {
    return Math.min(
      this.settings.redeliveryDelayMs * 2 ** (attempt - 1),
      this.settings.maxRedeliveryDelayMs,
    );
  }
}
