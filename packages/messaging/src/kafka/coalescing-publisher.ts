import type { Producer } from 'kafkajs';
import { errorChain } from './error-chain.js';
import { approximateSize, toKafkaMessage, type WireMessage } from './kafka-message.js';

interface PendingPublish {
  readonly topic: string;
  readonly messages: WireMessage[];
  readonly size: number;
  resolve(): void;
  reject(error: unknown): void;
}

/** Stays well below the broker's default message.max.bytes (1 MiB) per request. */
const MAX_REQUEST_BYTES = 512 * 1024;
const MAX_REQUEST_MESSAGES = 2000;

/**
 * Errors after which an idempotent producer's sequence numbers no longer match the broker's (seen after
 * a broker restart on a broker with thousands of partitions: kafkajs then failed every later send with
 * OUT_OF_ORDER_SEQUENCE_NUMBER and matching's relay published nothing for 5 minutes). Only a new
 * producer, with a new producer id, gets past them; what it re-sends, the idempotent consumers absorb.
 */
const BROKEN_SEQUENCE = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_EPOCH',
]);

/** Whether the error, or one it wraps (kafkajs wraps the last one after its retries), is one of those. */
export function breaksProducerSequence(error: unknown): boolean {
  for (const { type } of errorChain(error))
    if (typeof type === 'string' && BROKEN_SEQUENCE.has(type)) return true;
  return false;
}

/**
 * Sends each publish at once when nothing is in flight (no linger), and folds the publishes that
 * arrive meanwhile into one request per topic. The idempotent producer sends one request at a time
 * per broker anyway, so under load this turns a queue of small requests into a few larger ones.
 * Publishes to one topic keep their order; one request never mixes topics, so a bad topic fails
 * only the publishes aimed at it.
 */
export class CoalescingPublisher {
  private queue: PendingPublish[] = [];
  private draining = false;

  /** `replaceProducer` drops the current producer; the next `producer()` call makes a new one. */
  constructor(
    private readonly producer: () => Promise<Producer>,
    private readonly replaceProducer: () => Promise<void>,
  ) {}

  publish(topic: string, messages: WireMessage[]): Promise<void> {
    if (messages.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const size = messages.reduce((total, message) => total + approximateSize(message), 0);
      this.queue.push({ topic, messages, size, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const request = this.takeRequest();
        try {
          const producer = await this.producer();
          await producer.send({
            topic: request[0]!.topic,
            messages: request.flatMap((pending) => pending.messages.map(toKafkaMessage)),
            acks: -1,
          });
          for (const pending of request) pending.resolve();
        } catch (error) {
          if (breaksProducerSequence(error)) await this.replaceProducer().catch(() => undefined);
          for (const pending of request) pending.reject(error);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /** The oldest publish plus the later ones for the same topic that fit in one request. */
  private takeRequest(): PendingPublish[] {
    const first = this.queue[0]!;
    const request: PendingPublish[] = [first];
    const rest: PendingPublish[] = [];
    let bytes = first.size;
    let count = first.messages.length;
    let topicBlocked = false;
    for (let index = 1; index < this.queue.length; index++) {
      const pending = this.queue[index]!;
      if (pending.topic !== first.topic) {
        rest.push(pending);
        continue;
      }
      const fits =
        bytes + pending.size <= MAX_REQUEST_BYTES &&
        count + pending.messages.length <= MAX_REQUEST_MESSAGES;
      // Once one publish for this topic stays behind, later ones must too, or they would overtake it.
      if (fits && !topicBlocked) {
        request.push(pending);
        bytes += pending.size;
        count += pending.messages.length;
      } else {
        topicBlocked = true;
        rest.push(pending);
      }
    }
    this.queue = rest;
    return request;
  }
}
