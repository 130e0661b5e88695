import { randomUUID } from 'node:crypto';
import type { Checkpoint, EventStore, RecordedEvent } from '@vop/event-store';
import type { Bus, OutgoingMessage } from '@vop/messaging';
import { toOutgoingMessage } from './envelope.js';
import { IdlePoll } from './idle-poll.js';
import { Lease } from './lease.js';
import { Wakeup } from './wakeup.js';

export interface OutboxRoute {
  topic: string;
  key: string;
}

export interface OutboxRelayOptions {
  store: EventStore;
  bus: Bus;
  /** Names the checkpoint and the lease; one name per store. */
  name: string;
  /** Which topic and key an event goes to; null keeps it private to the store. */
  route: (event: RecordedEvent) => OutboxRoute | null;
  /** Most events read (and published) per round; default 500. */
  batchSize?: number;
  /**
   * Fallback poll when no wake-up hint arrives, right after work or a wake-up; default 500 ms. It
   * doubles after each read that found nothing, up to `maxPollIntervalMs`: appends wake the relay.
   */
  pollIntervalMs?: number;
  /** Slowest fallback poll of an idle relay; default 30 s. */
  maxPollIntervalMs?: number;
  /**
   * After a round that was not full, the next read starts at least this long after the last one began,
   * so appends that arrive meanwhile go out in one publication. Default 0: at the next append. For a
   * relay whose events no caller waits for (the gateway's, when single checks are decided at recording).
   */
  lingerMs?: number;
  leaseMs?: number;
  /**
   * How often the checkpoint is written while publishing (and at stop). Between writes it is kept in
   * memory: a restart re-publishes at most this much, which the idempotent consumers absorb. Default 1 s.
   */
  checkpointIntervalMs?: number;
  /**
   * The deployment's instance id (VOP_INSTANCE_ID, one process per id): a restarted process takes its
   * predecessor's lease at once (packages/outbox/src/lease.ts). Default: a fresh id, so no takeover.
   */
  instanceId?: string;
  /**
   * Streams whose every reader is written with their events, at commit, in this store's database
   * (embedded: the account events, services/embedded/src/service.ts). Their events appended after this
   * relay started are neither published nor read whole (`ReadAllOptions.passOver`); those appended
   * before are published, as a run before may have left them unpublished.
   */
  readAtCommit?: { streamPrefix: string };
  onError?: (error: unknown) => void;
  onPublished?: (events: RecordedEvent[]) => void;
  /** Test seam: runs after publishing and before the checkpoint is saved. */
  beforeCheckpoint?: (events: RecordedEvent[]) => Promise<void>;
}

/**
 * Events per round of a relay of batch entries' events whose store shares one connection and the request
 * thread with single checks (embedded: one PGlite; the events read are decoded and published on that
 * thread). A round's read of 500 such events held single checks for 100–300 ms every few seconds of a
 * batch; 50 keep each read brief (bench/RESULTS.md §4).
 */
export const SHARED_THREAD_BATCH_RELAY_PAGE = 50;

/**
 * Publishes the store's events to the bus in commit order and then moves its checkpoint: at-least-once,
 * ordered per key. On a non-durable bus the checkpoint waits until every group has handled the batch
 * (the next publications do not), so a restart re-publishes whatever was still only in memory.
 */
export class OutboxRelay {
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly idlePoll: IdlePoll;
  private readonly lease: Lease;
  private readonly wakeup = new Wakeup();
  private running = false;
  private loopDone: Promise<void> | undefined;
  private stopListening: (() => Promise<void>) | undefined;
  /** Where the next read starts; held in memory while this relay holds the lease. */
  private checkpoint: Checkpoint | undefined;
  /**
   * What may be stored (the relay is the checkpoint's only writer): the read position once every
   * group of a non-durable bus has handled what was published up to it.
   */
  private settledCheckpoint: Checkpoint | undefined;
  /** The settled checkpoint is ahead of the stored one. */
  private checkpointDirty = false;
  /** Publications of a non-durable bus whose handling is still awaited, oldest first. */
  private unsettled: Promise<void>[] = [];
  /** Lost when a relay gives up its position (an error, a lost lease): late settles are ignored. */
  private generation = 0;
  private checkpointSavedAt = 0;
  private readonly checkpointIntervalMs: number;
  /** Whether the first lease decision is made: this relay publishes, or a live holder does. */
  private settledLeadership = false;
  private markSettled!: () => void;
  private readonly leadershipSettled = new Promise<void>((resolve) => (this.markSettled = resolve));
  /** What the reads pass over (`readAtCommit`), from the store's last position at start. */
  private passOver: { streamPrefix: string; after: bigint } | undefined;

  constructor(private readonly options: OutboxRelayOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.idlePoll = new IdlePoll(
      this.pollIntervalMs,
      Math.max(this.pollIntervalMs, options.maxPollIntervalMs ?? 30_000),
    );
    this.checkpointIntervalMs = options.checkpointIntervalMs ?? 1000;
    this.lease = new Lease(
      options.store.sql,
      options.store.schema,
      `relay:${options.name}`,
      options.instanceId ?? randomUUID(),
      options.leaseMs ?? 10_000,
    );
  }

  async start(): Promise<void> {
    await this.lease.migrate();
    const { readAtCommit } = this.options;
    if (readAtCommit !== undefined)
      this.passOver = { ...readAtCommit, after: await this.options.store.lastPosition() };
    this.stopListening = await this.options.store.onAppend(() => this.wakeup.wake());
    this.running = true;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeup.wake();
    await this.loopDone;
    // What the groups still handle may still move the checkpoint (a stopped group never answers).
    await Promise.race([
      Promise.all(this.unsettled).catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, STOP_SETTLE_MS).unref()),
    ]);
    await this.stopListening?.();
    await this.saveCheckpoint().catch((error: unknown) => this.options.onError?.(error));
    await this.lease.release().catch(() => undefined);
  }

  /**
   * Ready once the relay has decided whether it publishes (or another live holder does): until then a
   * recorded verification might wait for the lease, so readiness (/readyz) waits for it too.
   */
  isReady(): boolean {
    return this.running && this.settledLeadership;
  }

  /** Resolves when the relay is first ready (`isReady`); never, if it stops before. */
  whenFirstReady(): Promise<void> {
    return this.leadershipSettled;
  }

  /** Publishes one batch and waits until it is settled; returns how many events it read. */
  async runOnce(): Promise<number> {
    const count = await this.publishOnce();
    await Promise.all(this.unsettled);
    return count;
  }

  /**
   * Publishes one batch; on a non-durable bus, the next may start before the groups handled it. Returns
   * how many events it read (published or passed over).
   */
  private async publishOnce(): Promise<number> {
    const { store, bus, name, route } = this.options;
    const after = this.checkpoint ?? (await store.loadCheckpoint(name));
    const { events, checkpoint, passedOver } = await store.readAll({
      after,
      limit: this.batchSize,
      ...(this.passOver && { passOver: this.passOver }),
    });
    if (events.length === 0 && passedOver === 0) {
      this.checkpoint = after;
      return 0;
    }

    const byTopic = new Map<string, OutgoingMessage[]>();
    const published: RecordedEvent[] = [];
    for (const event of events) {
      const target = route(event);
      if (!target) continue;
      const messages = byTopic.get(target.topic) ?? [];
      messages.push(toOutgoingMessage(event, target.key));
      byTopic.set(target.topic, messages);
      published.push(event);
    }
    await Promise.all([...byTopic].map(([topic, messages]) => bus.publish(topic, messages)));
    this.checkpoint = checkpoint;
    if (bus.durable) await this.settle(published, checkpoint);
    else await this.settleLater(published, checkpoint);
    // Only this loop writes the checkpoint (a late settle only marks it), so writes never cross.
    if (this.checkpointDirty && Date.now() - this.checkpointSavedAt >= this.checkpointIntervalMs)
      await this.saveCheckpoint();
    this.options.onPublished?.(published);
    return events.length + passedOver;
  }

  /**
   * A non-durable bus loses what it holds in a crash, so the checkpoint may only move once every group
   * handled the events. Publishing does not wait for that: the slowest group (a background read model)
   * would hold back the next publication, and with it the single checks' own consumers. At most
   * `MAX_UNSETTLED` publications are awaited at once, which bounds what a slow group makes the bus hold.
   */
  private async settleLater(published: RecordedEvent[], checkpoint: Checkpoint): Promise<void> {
    const generation = this.generation;
    const handled = this.options.bus.settled().then(async () => {
      if (generation === this.generation) await this.settle(published, checkpoint);
    });
    const tracked = handled.finally(() => {
      this.unsettled = this.unsettled.filter((promise) => promise !== tracked);
    });
    this.unsettled.push(tracked);
    // A failed settle surfaces in the loop (through the oldest awaited publication), not unhandled.
    tracked.catch(() => undefined);
    if (this.unsettled.length > MAX_UNSETTLED) await this.unsettled[0];
  }

  private async settle(published: RecordedEvent[], checkpoint: Checkpoint): Promise<void> {
    await this.options.beforeCheckpoint?.(published);
    // Settles of a non-durable bus may resolve together in any order: the checkpoint only moves on.
    const current = this.settledCheckpoint;
    if (current && !isAfter(checkpoint, current)) return;
    this.settledCheckpoint = checkpoint;
    this.checkpointDirty = true;
  }

  /** The next read starts from the stored checkpoint again. */
  private forgetPosition(): void {
    this.generation += 1;
    this.unsettled = [];
    this.checkpoint = undefined;
    this.settledCheckpoint = undefined;
    this.checkpointDirty = false;
  }

  /** Stores the settled checkpoint if it moved since it was last stored. */
  private async saveCheckpoint(): Promise<void> {
    const checkpoint = this.settledCheckpoint;
    if (!this.checkpointDirty || checkpoint === undefined) return;
    await this.options.store.saveCheckpoint(this.options.name, checkpoint);
    this.checkpointSavedAt = Date.now();
    if (this.settledCheckpoint === checkpoint) this.checkpointDirty = false;
  }

  private async loop(): Promise<void> {
    let leaseRenewedAt = 0;
    let leader = false;
    const leaseMs = this.options.leaseMs ?? 10_000;
    const renewEveryMs = Math.ceil(leaseMs / 3);
    /** A read is due (woken, a full round, the fallback poll, a new leadership). */
    let readDue = true;
    let nextReadAt = 0;
    let lastReadStartedAt: number | undefined;
    while (this.running) {
      try {
        if (!leader || Date.now() - leaseRenewedAt >= renewEveryMs) {
          const wasLeader = leader;
          leader = await this.lease.acquire();
          if (leader) leaseRenewedAt = Date.now();
          this.settledLeadership = true;
          this.markSettled();
          // Another relay may have moved the checkpoint while this one did not hold the lease.
          if (!wasLeader || !leader) {
            this.forgetPosition();
            readDue = true;
          }
        }
        if (!leader) {
          // A standby is woken by every append the holder's instance makes too: it only looks at the
          // lease again when the wait is over (or at stop), not once per append.
          const lookAgainAt = Date.now() + leaseMs / 2;
          while (this.running && Date.now() < lookAgainAt)
            await this.wakeup.wait(lookAgainAt - Date.now());
          continue;
        }
        if (readDue) {
          // After a round that was not full, appends that arrive within the linger go out together.
          const lingerLeftMs =
            lastReadStartedAt === undefined
              ? 0
              : (this.options.lingerMs ?? 0) - (Date.now() - lastReadStartedAt);
          if (lingerLeftMs > 0 && this.running)
            await new Promise((resolve) => setTimeout(resolve, lingerLeftMs));
          if (!this.running) break;
          const readStartedAt = Date.now();
          const count = await this.publishOnce();
          if (count >= this.batchSize) {
            lastReadStartedAt = undefined;
            continue;
          }
          lastReadStartedAt = readStartedAt;
          if (count > 0) this.idlePoll.snapBack();
          readDue = false;
          nextReadAt = Date.now() + this.idlePoll.next();
        }
        // Idle: woken by an append, or at the fallback poll, the lease's renewal, or the time a
        // checkpoint still only in memory is due to be stored.
        const renewAt = leaseRenewedAt + renewEveryMs;
        const checkpointDueAt = this.checkpointDirty
          ? this.checkpointSavedAt + this.checkpointIntervalMs
          : Number.POSITIVE_INFINITY;
        const waitMs = Math.max(0, Math.min(nextReadAt, renewAt, checkpointDueAt) - Date.now());
        if (await this.wakeup.wait(waitMs)) {
          this.idlePoll.snapBack();
          readDue = true;
        } else if (Date.now() >= nextReadAt) readDue = true;
        if (
          this.checkpointDirty &&
          Date.now() - this.checkpointSavedAt >= this.checkpointIntervalMs
        )
          await this.saveCheckpoint();
      } catch (error) {
        this.forgetPosition();
        this.options.onError?.(error);
        readDue = true;
        await this.wakeup.wait(this.pollIntervalMs);
      }
    }
  }
}

const MAX_UNSETTLED = 2;

/** Commit order, as the store reads it: by transaction, then by position. */
function isAfter(checkpoint: Checkpoint, other: Checkpoint): boolean {
  const [transaction, otherTransaction] = [
    BigInt(checkpoint.transactionId),
    BigInt(other.transactionId),
  ];
  return transaction === otherTransaction
    ? checkpoint.globalPosition > other.globalPosition
    : transaction > otherTransaction;
}
const STOP_SETTLE_MS = 2_000;

/** A readiness check (packages/http ops routes) that fails until the relay has settled its lease. */
export async function relayReadiness(relay: Pick<OutboxRelay, 'isReady'>): Promise<void> {
  if (!relay.isReady()) throw new Error('outbox relay has not settled its lease yet');
}
