import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createInProcessBus, spanEachMessage, type IncomingMessage } from '@vop/messaging';
import { activeTraceIds, type Tracing } from '@vop/observability';
import { startServiceTracing } from './service-tracing.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CAUSE = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

interface Seen {
  traceparent: string | undefined;
  activeTraceId: string | undefined;
}

/** Publishes one message caused by CAUSE on an in-process bus; what its consumer saw. */
async function deliverOne(): Promise<Seen> {
  const bus = createInProcessBus();
  const seen: Seen[] = [];
  await bus.subscribe({
    groupId: 'reader',
    topics: ['events'],
    batchHandler: async (messages: IncomingMessage[]) => {
      for (const message of messages)
        seen.push({
          traceparent: message.headers['traceparent'],
          activeTraceId: activeTraceIds().trace_id,
        });
    },
  });
  await bus.publish('events', [{ key: 'k', value: 'v', headers: { traceparent: CAUSE } }]);
  await bus.settled();
  await bus.close();
  assert.equal(seen.length, 1);
  return seen[0] as Seen;
}

describe('a service process tracing without an exporter', () => {
  let tracing: Tracing;
  before(() => {
    tracing = startServiceTracing('spec', {});
  });
  after(async () => {
    spanEachMessage(true);
    await tracing.shutdown();
  });

  it('passes a message its cause, unchanged, and handles it in that trace', async () => {
    assert.equal(tracing.exporting, false);

    const seen = await deliverOne();

    assert.equal(seen.traceparent, CAUSE);
    assert.equal(seen.activeTraceId, TRACE_ID);
  });

  it('with a span for each message, the consumer gets a span of its own in the same trace', async () => {
    spanEachMessage(true);

    const seen = await deliverOne();

    assert.notEqual(seen.traceparent, CAUSE);
    assert.equal(seen.traceparent?.split('-')[1], TRACE_ID);
    assert.equal(seen.activeTraceId, TRACE_ID);
  });
});
