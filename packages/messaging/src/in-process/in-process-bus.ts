import { publishTraced } from '../message-tracing.js';
import { abortableDelay } from '../abortable-delay.js';
import { deliveryFor } from '../delivery.js';
import { partitionFor } from '../partitioner.js';
import type {
  Bus,
  OutgoingMessage,
  PartitionLag,
  SubscribeOptions,
  Subscription,
  TopicSpec,
} from '../types.js';
import { GroupMember } from './group-member.js';
import { PartitionCursor, type SettleWaiter } from './partition-cursor.js';
import { PartitionLog } from './partition-log.js';

export interface InProcessBusOptions {
  /** Partitions of a topic that is published or subscribed to before `ensureTopics` names it. Default 8. */
  defaultPartitions?: number;
  /** Wait before a message whose handler threw is delivered again. Default 100 ms. */
  redeliveryDelayMs?: number;
  /**
   * Every topic gets this many partitions, whatever `ensureTopics` asks for. One process with one
   * database gains nothing from partitions, while each partition is a batch (a transaction) of its own
   * per consumer group: the embedded service uses 1.
   */
  partitionsPerTopic?: number;
  /**
   * Most messages in one delivery to a group, whatever the subscription's `maxBatchSize`; between two
   * deliveries of a backlog the event loop turns. Embedded, a delivery's synchronous part (a parse per
   * message, and a span while spans are exported) runs on the thread that answers single checks: a
   * relay's publication of ~260 events held it 55–85 ms per group every ~1.3 s at 200 checks/s
   * (bench/RESULTS.md §1).
   * Default: no cap. A function is asked at each delivery (embedded: larger while no single check
   * came in the last second, services/embedded/src/service.ts).
   */
  maxDeliverySize?: number | (() => number);
}

interface TopicState {
  readonly name: string;
  readonly logs: PartitionLog[];
  /** Every group that ever subscribed to the topic, with its cursor per partition. */
  readonly cursorsByGroup: Map<string, PartitionCursor[]>;
}

interface GroupState {
  readonly id: string;
  /** In join order; partitions are dealt round-robin in this order. */
  members: GroupMember[];
  readonly cursorsByTopic: Map<string, PartitionCursor[]>;
}

interface PendingSettle extends SettleWaiter {
  reject(error: Error): void;
}

export interface InProcessBus extends Bus {
  /** Messages still held in memory per partition of a topic (shows trimming; for tests and metrics). */
  retainedMessages(topic: string): number[];
}

/**
 * Kafka's delivery semantics in memory: partitioned ordered logs, consumer groups with committed
 * offsets, partitions split among a group's members, at-least-once with redelivery after a failure.
 */
export function createInProcessBus(options: InProcessBusOptions = {}): InProcessBus {
  return new MemoryBus(
    options.partitionsPerTopic ?? options.defaultPartitions ?? 8,
    options.redeliveryDelayMs ?? 100,
    options.partitionsPerTopic !== undefined,
    deliverySizeOf(options.maxDeliverySize),
  );
}

/** The cap as a function asked at each delivery; a number is checked once, here. */
function deliverySizeOf(cap: InProcessBusOptions['maxDeliverySize']): () => number {
  // Asked inside a partition's pump, where a throw would stop it: anything below one reads as one.
  if (typeof cap === 'function') return () => Math.max(1, Math.floor(cap()) || 1);
  if (cap === undefined) return () => Number.POSITIVE_INFINITY;
  assertPositiveInteger(cap, 'maxDeliverySize');
  return () => cap;
}

class MemoryBus implements InProcessBus {
  readonly durable = false;
  private readonly topics = new Map<string, TopicState>();
  private readonly groups = new Map<string, GroupState>();
  private readonly pendingSettles = new Set<PendingSettle>();
  private readonly shutdown = new AbortController();
  private closed = false;

  constructor(
    private readonly defaultPartitions: number,
    private readonly redeliveryDelayMs: number,
    private readonly fixedPartitions: boolean,
    private readonly maxDeliverySize: () => number,
  ) {
    assertPositiveInteger(defaultPartitions, 'defaultPartitions');
    if (!(redeliveryDelayMs >= 0)) throw new RangeError('redeliveryDelayMs must be >= 0');
  }

  subscribedGroups(): Array<{ groupId: string; topics: string[] }> {
    return [...this.groups.values()]
      .filter((group) => group.members.some((member) => !member.closed))
      .map((group) => ({ groupId: group.id, topics: [...group.cursorsByTopic.keys()] }));
  }

  async consumerLag(groupId: string, topics: string[]): Promise<number> {
    const partitions = await this.consumerLagByPartition(groupId, topics);
    return partitions.reduce((sum, { lag }) => sum + lag, 0);
  }

  async consumerLagByPartition(groupId: string, topics: string[]): Promise<PartitionLag[]> {
    const lags: PartitionLag[] = [];
    for (const name of topics) {
      const topic = this.topics.get(name);
      const cursors = this.groups.get(groupId)?.cursorsByTopic.get(name);
      topic?.logs.forEach((log, partition) => {
        const lag = log.endOffset - (cursors?.[partition]?.committed ?? log.startOffset);
        lags.push({ topic: name, partition, lag });
      });
    }
    return lags;
  }

  async ensureTopics(topics: TopicSpec[]): Promise<void> {
    this.assertOpen();
    for (const spec of topics) {
      assertPositiveInteger(spec.partitions, `partitions of ${spec.name}`);
      this.topic(spec.name, this.fixedPartitions ? this.defaultPartitions : spec.partitions);
    }
  }

  async publish(topicName: string, messages: OutgoingMessage[]): Promise<void> {
    this.assertOpen();
    await publishTraced(topicName, messages, async (traced) => this.append(topicName, traced));
  }

  private append(topicName: string, messages: OutgoingMessage[]): void {
    const topic = this.topic(topicName);
    const touched = new Set<number>();
    for (const message of messages) {
      const partition = partitionFor(message.key, topic.logs.length);
      const headers = Object.freeze({ ...(message.headers ?? {}) });
      topic.logs[partition]!.append((offset) =>
        Object.freeze({
          topic: topicName,
          partition,
          offset: String(offset),
          key: message.key,
          value: message.value,
          headers,
        }),
      );
      touched.add(partition);
    }
    for (const cursors of topic.cursorsByGroup.values()) {
      for (const partition of touched) this.wake(cursors[partition]!);
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    this.assertOpen();
    if (options.topics.length === 0) throw new Error('subscribe needs at least one topic');
    const member = new GroupMember(
      options.groupId,
      options.topics,
      deliveryFor(options),
      options.onHandlerError,
      options.partitionsConsumedConcurrently ?? 1,
      options.onHoldsEveryPartition,
    );
    const group = this.group(options.groupId);
    for (const topicName of options.topics) {
      const topic = this.topic(topicName);
      if (!group.cursorsByTopic.has(topicName)) {
        const fromBeginning = options.startAtEnd !== true && (options.fromBeginning ?? true);
        const cursors = topic.logs.map(
          (log, partition) =>
            new PartitionCursor(
              topicName,
              partition,
              log,
              fromBeginning ? log.startOffset : log.endOffset,
            ),
        );
        group.cursorsByTopic.set(topicName, cursors);
        topic.cursorsByGroup.set(group.id, cursors);
      } else if (options.startAtEnd === true) {
        for (const cursor of group.cursorsByTopic.get(topicName) ?? [])
          cursor.commit(cursor.log.endOffset - cursor.committed);
      }
    }
    group.members.push(member);
    this.rebalance(group);
    return { close: () => this.leave(group, member) };
  }

  settled(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('bus is closed'));
    return new Promise((resolve, reject) => {
      const waiter: PendingSettle = {
        pending: 0,
        resolve: () => {
          this.pendingSettles.delete(waiter);
          resolve();
        },
        reject,
      };
      for (const group of this.groups.values()) {
        for (const [topicName, cursors] of group.cursorsByTopic) {
          if (!hasReader(group, topicName)) continue;
          for (const cursor of cursors) cursor.waitFor(cursor.log.endOffset, waiter);
        }
      }
      if (waiter.pending === 0) resolve();
      else this.pendingSettles.add(waiter);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.shutdown.abort();
    const members = [...this.groups.values()].flatMap((group) => group.members);
    for (const member of members) {
      member.closed = true;
      member.holdsEveryPartition(false);
    }
    for (const group of this.groups.values()) {
      group.members = [];
      for (const cursors of group.cursorsByTopic.values()) {
        for (const cursor of cursors) cursor.owner = undefined;
      }
    }
    for (const waiter of this.pendingSettles)
      waiter.reject(new Error('bus closed before settling'));
    this.pendingSettles.clear();
    await Promise.all(members.map((member) => member.whenIdle()));
  }

  retainedMessages(topicName: string): number[] {
    return this.topics.get(topicName)?.logs.map((log) => log.retained) ?? [];
  }

  private async leave(group: GroupState, member: GroupMember): Promise<void> {
    if (!member.closed) {
      member.closed = true;
      group.members = group.members.filter((candidate) => candidate !== member);
      member.holdsEveryPartition(false);
      this.rebalance(group);
    }
    await member.whenIdle();
  }

  private rebalance(group: GroupState): void {
    for (const [topicName, cursors] of group.cursorsByTopic) {
      const readers = group.members.filter((member) => member.topics.has(topicName));
      for (const cursor of cursors) {
        cursor.owner = readers.length > 0 ? readers[cursor.partition % readers.length] : undefined;
        if (cursor.owner) this.wake(cursor);
        else cursor.releaseAllWaits();
      }
    }
    for (const member of group.members) {
      const holdsEvery = [...member.topics].every((topicName) =>
        (group.cursorsByTopic.get(topicName) ?? []).every((cursor) => cursor.owner === member),
      );
      member.holdsEveryPartition(holdsEvery);
    }
  }

  /** Starts the delivery loop of a partition if it has work and none runs. */
  private wake(cursor: PartitionCursor): void {
    if (cursor.pumping || !cursor.owner || !cursor.hasBacklog || this.closed) return;
    cursor.pumping = true;
    // Never inside publish's or subscribe's call stack: delivery is asynchronous. setImmediate rather than
    // a microtask, so everything published in this turn of the event loop goes out as one batch.
    setImmediate(() => void this.pump(cursor));
  }

  private async pump(cursor: PartitionCursor): Promise<void> {
    let failedAttempts = 0;
    // After a failure the same member gets the same batch again, not one grown by later messages.
    let retryOwner: GroupMember | undefined;
    let retrySize = 0;
    try {
      for (;;) {
        const owner = cursor.owner;
        if (!owner || this.closed || !cursor.hasBacklog) return;
        // A lingering subscriber gets what arrived during its linger in one delivery (a retry does not wait).
        const lingerLeft = cursor.deliveredAt + owner.lingerMs - performance.now();
        if (owner !== retryOwner && lingerLeft > 0) {
          await abortableDelay(lingerLeft, this.shutdown.signal);
          continue;
        }
        if (!owner.slots.tryAcquire()) await owner.slots.acquire();
        if (cursor.owner !== owner) {
          owner.slots.release();
          continue;
        }
        // Read only now, so a batch takes in whatever arrived while waiting for the slot.
        const size =
          owner === retryOwner ? retrySize : Math.min(owner.maxBatchSize, this.maxDeliverySize());
        const batch = cursor.log.readFrom(cursor.committed, size);
        // A full delivery leaves a backlog behind: the next one goes at once, lingering or not.
        cursor.deliveredAt = batch.length < size ? performance.now() : Number.NEGATIVE_INFINITY;
        let handled = false;
        try {
          await owner.handle(batch);
          handled = true;
        } catch (error) {
          failedAttempts++;
          owner.reportFailure(error, batch, failedAttempts);
        } finally {
          owner.slots.release();
        }
        if (handled) {
          failedAttempts = 0;
          retryOwner = undefined;
          cursor.commit(batch.length);
          this.trim(cursor);
          // A backlog goes out a delivery per turn of the event loop, so others get the thread between.
          if (cursor.hasBacklog) await new Promise<void>((resolve) => setImmediate(resolve));
        } else {
          retryOwner = owner;
          retrySize = batch.length;
          await abortableDelay(this.redeliveryDelayMs, this.shutdown.signal);
        }
      }
    } finally {
      cursor.pumping = false;
      // A message or an owner may have arrived between the last check and now.
      this.wake(cursor);
    }
  }

  /** Drops messages every group has committed, so memory follows the slowest group. */
  private trim(cursor: PartitionCursor): void {
    const topic = this.topics.get(cursor.topic)!;
    let lowest = cursor.committed;
    for (const cursors of topic.cursorsByGroup.values()) {
      lowest = Math.min(lowest, cursors[cursor.partition]!.committed);
    }
    cursor.log.trimBelow(lowest);
  }

  private topic(name: string, partitions = this.defaultPartitions): TopicState {
    let topic = this.topics.get(name);
    if (!topic) {
      if (name.length === 0) throw new Error('topic name must not be empty');
      topic = {
        name,
        logs: Array.from({ length: partitions }, () => new PartitionLog()),
        cursorsByGroup: new Map(),
      };
      this.topics.set(name, topic);
    }
    return topic;
  }

  private group(id: string): GroupState {
    let group = this.groups.get(id);
    if (!group) {
      if (id.length === 0) throw new Error('groupId must not be empty');
      group = { id, members: [], cursorsByTopic: new Map() };
      this.groups.set(id, group);
    }
    return group;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('bus is closed');
  }
}

function hasReader(group: GroupState, topicName: string): boolean {
  return group.members.some((member) => member.topics.has(topicName));
}

function assertPositiveInteger(value: number, what: string): void {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${what} must be a positive integer`);
}
