import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { errorChain } from './error-chain.js';

/** A broker that accepts connections and never answers: what a hung broker looks like to a client. */
async function silentBroker(): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return { server, port: address.port, sockets };
}

/** kafkajs wraps the timeout in the error its retries end with. */
const timedOut = (error: unknown): boolean =>
  [...errorChain(error)].some((link) => link['name'] === 'KafkaJSRequestTimeoutError');

// patches/kafkajs@2.2.4.patch checks every connection's requests for their timeout on one shared timer
// (docs/performance.md, the kafkajs bullet): a request that gets no answer must still time out, on each
// of several connections at once, and the timer must not outlive them.
describe('a Kafka request that gets no answer (patches/kafkajs@2.2.4.patch)', () => {
  let broker: Awaited<ReturnType<typeof silentBroker>>;

  before(async () => {
    broker = await silentBroker();
  });

  after(async () => {
    for (const socket of broker.sockets) socket.destroy();
    await new Promise((resolve) => broker.server.close(resolve));
  });

  it('given three clients of a silent broker, when each connects, then each request times out within a few seconds of its timeout', async () => {
    const clients = Array.from({ length: 3 }, (_, index) =>
      new Kafka({
        clientId: `vop-request-timeout-${index}`,
        brokers: [`127.0.0.1:${broker.port}`],
        requestTimeout: 1_000 + 500 * index,
        connectionTimeout: 1_000,
        retry: { retries: 0 },
        logLevel: logLevel.NOTHING,
      }).admin(),
    );
    // The longest timeout is 2 s and the check runs every second; without a check the requests would
    // wait forever, so each gets 10 s.
    let deadline: NodeJS.Timeout | undefined;
    const noTimeout = new Promise<never>((_, reject) => {
      deadline = setTimeout(() => reject(new Error('no timeout within 10 s')), 10_000);
    });
    const outcomes = await Promise.allSettled(
      clients.map((admin) => Promise.race([admin.connect(), noTimeout])),
    );
    clearTimeout(deadline);
    await Promise.all(clients.map((admin) => admin.disconnect().catch(() => undefined)));

    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected', 'a request to a silent broker was answered');
      assert.ok(timedOut(outcome.reason), `not a request timeout: ${String(outcome.reason)}`);
    }
  });
});
