import { workerData } from 'node:worker_threads';
import { z } from '@vop/contracts';
import { createPostgresClient, EventStore } from '@vop/event-store';
import { createKafkaBus } from '@vop/messaging';
import { serveRelayThread } from './relay-thread.js';
import { OutboxRelay } from './relay.js';

/**
 * The thread module of relay-thread.kafka.test.ts: a relay of the test's store to its topic. An event
 * of type `EndThisThread` ends the thread after it is published, once per test (a row in the test's
 * schema remembers it), so the spec can see the thread started again.
 */
const data = z
  .object({
    databaseUrl: z.string(),
    brokers: z.array(z.string()),
    schema: z.string(),
    topic: z.string(),
    name: z.string(),
  })
  .parse(workerData);

await serveRelayThread(async () => {
  const sql = createPostgresClient({ connectionString: data.databaseUrl, max: 2 });
  const bus = createKafkaBus({ brokers: data.brokers, clientId: `relay-thread-${data.name}` });
  const store = new EventStore(sql, { schema: data.schema });
  const relay = new OutboxRelay({
    store,
    bus,
    name: data.name,
    // As a service's relay: the thread started again takes over its predecessor's lease at once.
    instanceId: data.name,
    route: (event) => ({ topic: data.topic, key: event.streamId }),
    checkpointIntervalMs: 100,
    onPublished: (events) => {
      if (!events.some((event) => event.type === 'EndThisThread')) return;
      void sql
        .query(
          `INSERT INTO ${data.schema}.thread_ended (name) VALUES ($1) ON CONFLICT DO NOTHING RETURNING name`,
          [data.name],
        )
        .then(({ rows }) => {
          if (rows.length > 0) process.exit(3);
        });
    },
  });
  return {
    relay,
    close: async () => {
      await bus.close();
      await sql.close();
    },
  };
});
