import { randomUUID } from 'node:crypto';
import type { Checkpoint, EventStore, RecordedEvent } from '@vop/event-store';
import type { Bus, OutgoingMessage } from '@vop/messaging';
import { toOutgoingMessage } from './envelope.js';
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
  batchSize?: number;
  /** Fallback poll when no wake-up hint arrives. */
  pollIntervalMs?: number;
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
  onError?: (error: unknown) => void;
  onPublished?: (events: RecordedEvent[]) => void;
  /** Test seam: runs after publishing and before the checkpoint is saved. */
  beforeCheckpoint?: (events: RecordedEvent[]) => Promise<void>;
}

/**
 * Publishes the store's events to the bus in commit order and then moves its checkpoint: at-least-once,
 * ordered per key. On a non-durable bus the stored checkpoint waits until every group has handled the
 * batch, so a restart re-publishes whatever was still only in memory; the next batch does not wait for
 * it (a relay of single checks would otherwise wait behind the slowest group, which may be one that
 * yields to single checks: services/embedded/src/single-checks-first.ts).
 */
export class OutboxRelay {
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly lease: Lease;
  private readonly wakeup = new Wakeup();
  private running = false;
  private loopDone: Promise<void> | undefined;
  private stopListening: (() => Promise<void>) | undefined;
  /** Held in memory while this relay holds the lease (it is the checkpoint's only writer). */
  private checkpoint: Checkpoint | undefined;
  /** The in-memory checkpoint is ahead of the stored one. */
  private checkpointDirty = false;
  /** Non-durable bus: the last checkpoint whose events every group has handled (what is stored). */
  private settledCheckpoint: Checkpoint | undefined;
  /** Counts the batches published on a non-durable bus, so an older settlement never wins. */
  private publishedBatches = 0;
  private settledBatch = 0;
  private checkpointSavedAt = 0;
  private readonly checkpointIntervalMs: number;
  /** Whether the first lease decision is made: this relay publishes, or a live holder does. */
  private settledLeadership = false;

  constructor(private readonly options: OutboxRelayOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
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
    this.stopListening = await this.options.store.onAppend(() => this.wakeup.wake());
    this.running = true;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeup.wake();
    await this.loopDone;
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

  /** Publishes one batch; returns how many events it published. */
  async runOnce(): Promise<number> {
    const { store, bus, name, route } = this.options;
    const after = this.checkpoint ?? (await store.loadCheckpoint(name));
    const { events, checkpoint } = await store.readAll({ after, limit: this.batchSize });
    if (events.length === 0) {
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
    if (!bus.durable) {
      const batch = (this.publishedBatches += 1);
      void bus.settled().then(() => {
        if (batch <= this.settledBatch) return;
        this.settledBatch = batch;
        this.settledCheckpoint = checkpoint;
      });
    }
    await this.options.beforeCheckpoint?.(published);
    this.checkpoint = checkpoint;
    this.checkpointDirty = true;
    if (Date.now() - this.checkpointSavedAt >= this.checkpointIntervalMs)
      await this.saveCheckpoint();
    this.options.onPublished?.(published);
    return events.length;
  }

  /** Stores the in-memory checkpoint (non-durable bus: the settled one) if it moved since it was stored. */
  private async saveCheckpoint(): Promise<void> {
    const checkpoint = this.options.bus.durable ? this.checkpoint : this.settledCheckpoint;
    if (!this.checkpointDirty) return;
    if (checkpoint === undefined) {
      // Nothing handled everywhere yet: look again after the interval, not at once.
      this.checkpointSavedAt = Date.now();
      return;
    }
    await this.options.store.saveCheckpoint(this.options.name, checkpoint);
    this.checkpointSavedAt = Date.now();
    if (this.checkpoint === checkpoint) this.checkpointDirty = false;
  }

  private async loop(): Promise<void> {
    let leaseRenewedAt = 0;
    let leader = false;
    const leaseMs = this.options.leaseMs ?? 10_000;
    while (this.running) {
      try {
        if (!leader || Date.now() - leaseRenewedAt > leaseMs / 3) {
          const wasLeader = leader;
          leader = await this.lease.acquire();
          if (leader) leaseRenewedAt = Date.now();
          this.settledLeadership = true;
          // Another relay may have moved the checkpoint while this one did not hold the lease.
          if (!wasLeader || !leader) {
            this.checkpoint = undefined;
            this.checkpointDirty = false;
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
        const count = await this.runOnce();
        if (count < this.batchSize) {
          // Idle: a checkpoint still only in memory is stored after the interval, not left behind.
          const dueInMs = this.checkpointSavedAt + this.checkpointIntervalMs - Date.now();
          await this.wakeup.wait(
            this.checkpointDirty
              ? Math.max(0, Math.min(this.pollIntervalMs, dueInMs))
              : this.pollIntervalMs,
          );
          if (
            this.checkpointDirty &&
            Date.now() - this.checkpointSavedAt >= this.checkpointIntervalMs
          )
            await this.saveCheckpoint();
        }
      } catch (error) {
        this.checkpoint = undefined;
        this.checkpointDirty = false;
        this.options.onError?.(error);
        await this.wakeup.wait(this.pollIntervalMs);
      }
    }
  }
}

/** A readiness check (packages/http ops routes) that fails until the relay has settled its lease. */
export async function relayReadiness(relay: OutboxRelay): Promise<void> {
  if (!relay.isReady()) throw new Error('outbox relay has not settled its lease yet');
}
