import type { IHeaders, KafkaMessage, Message } from 'kafkajs';
import type { IncomingMessage, OutgoingMessage } from '../types.js';

/** A message as the producer sends it: the value may be encoded (see value-codec.ts). */
export type WireMessage = Omit<OutgoingMessage, 'value'> & { value: string | Buffer };

export function toKafkaMessage(message: WireMessage): Message {
  return message.headers
    ? { key: message.key, value: message.value, headers: message.headers }
    : { key: message.key, value: message.value };
}

export function toIncomingMessage(
  topic: string,
  partition: number,
  message: KafkaMessage,
): IncomingMessage {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? '',
    value: message.value?.toString('utf8') ?? '',
    headers: headersToStrings(message.headers),
  };
}

/**
 * Kafka allows repeated header keys; the bus's headers are a plain map, so the first value wins. Every
 * name is an own property, as sent: a header named `__proto__` is a value, not the map's prototype.
 */
export function headersToStrings(headers: IHeaders | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  if (!headers) return result;
  for (const [name, raw] of Object.entries(headers)) {
    const first = Array.isArray(raw) ? raw[0] : raw;
    if (first === undefined) continue;
    const value = typeof first === 'string' ? first : first.toString('utf8');
    if (name === '__proto__')
      Object.defineProperty(result, name, {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    else result[name] = value;
  }
  return result;
}

/** Rough wire size of a message, to keep a coalesced produce request well under the broker's limit. */
export function approximateSize(message: WireMessage): number {
  let size = message.key.length + message.value.length + 64;
  if (message.headers) {
    for (const [name, value] of Object.entries(message.headers))
      size += name.length + value.length + 8;
  }
  return size;
}
