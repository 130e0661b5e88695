import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { RecordedEvent } from '@vop/event-store';
import {
  EVENT_ID_HEADER,
  parseEnvelope,
  STREAM_ID_HEADER,
  STREAM_POSITION_HEADER,
  toOutgoingMessage,
} from './envelope.js';

const stored = (streamPosition: number): RecordedEvent => ({
  eventId: randomUUID(),
  streamId: `thing-${randomUUID()}`,
  streamPosition,
  globalPosition: 42n,
  transactionId: '7',
  type: 'ThingHappened',
  data: { size: 3 },
  metadata: {},
  occurredAt: new Date('2026-03-01T00:00:00.000Z'),
});

describe('the wire form of a stored event (toOutgoingMessage)', () => {
  it('given a stored event, then its message names its stream and position in headers, as its envelope does', () => {
    const event = stored(12);
    const message = toOutgoingMessage(event, 'a-key');
    assert.equal(message.headers?.[STREAM_ID_HEADER], event.streamId);
    assert.equal(message.headers?.[STREAM_POSITION_HEADER], '12');
    assert.equal(message.headers?.[EVENT_ID_HEADER], event.eventId);
    const envelope = parseEnvelope({
      topic: 'things',
      partition: 0,
      offset: '0',
      key: message.key,
      value: message.value,
      headers: message.headers ?? {},
    });
    assert.equal(envelope.streamId, event.streamId);
    assert.equal(envelope.streamPosition, 12);
    assert.deepEqual(envelope.data, { size: 3 });
  });
});
