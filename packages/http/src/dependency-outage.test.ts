import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { RequestHandler } from 'express';
import { createLogger } from '@vop/observability';
import { logLines } from '@vop/testing';
import { createHttpApp } from './app.js';
import { createRouter } from './router.js';
import { loopFailureLog, unreachableDependency } from './dependency-outage.js';

/** A port nothing listens on: connecting to it fails as a stopped database does (ECONNREFUSED). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function connectTo(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

describe('a request whose database is unreachable', () => {
  let server: Server;
  let base: string;
  let dependencyPort: number;
  const { lines, destination } = logLines();

  before(async () => {
    const logger = createLogger({ service: 'spec', level: 'info', destination });
    dependencyPort = await closedPort();
    const routes = createRouter();
    const recordSomething: RequestHandler = async (_req, res) => {
      await connectTo(dependencyPort);
      res.status(200).json({ recorded: true });
    };
    routes.post('/api/v1/verify', recordSomething);
    routes.post('/vop/verify', recordSomething);
    routes.post('/vop/v1/payee-verifications', recordSomething);
    routes.post('/api/v1/broken', () => {
      throw new Error('a bug, not an outage');
    });
    const app = createHttpApp({ logger, respondingPsp: 'VOPBDEFFXXX', routers: [routes] });
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const post = (path: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
  const outageLines = () => lines.filter((line) => line['dependency'] !== undefined);

  it('is answered 503 with Retry-After in the path’s format, and the outage is logged once', async () => {
    const flat = await post('/api/v1/verify');
    assert.equal(flat.status, 503);
    assert.equal(flat.headers.get('retry-after'), '2');
    assert.deepEqual(
      { ...((await flat.json()) as Record<string, unknown>), message: undefined },
      { error: 'SERVICE_UNAVAILABLE', message: undefined, retry_after: 2 },
    );

    const scheme = await post('/vop/verify');
    assert.equal(scheme.status, 503);
    assert.equal(scheme.headers.get('retry-after'), '2');
    assert.equal(((await scheme.json()) as { error: { code: string } }).error.code, 'VOP_001');

    // The EPC API has no 503: its own answer for a fault on our side, with Retry-After still.
    const epc = await post('/vop/v1/payee-verifications');
    assert.equal(epc.status, 500);
    assert.equal(epc.headers.get('retry-after'), '2');

    assert.deepEqual(
      outageLines().map((line) => line['msg']),
      ['database unreachable: answering 503 with Retry-After until it is back'],
    );
    assert.equal(
      lines.some((line) => line['err'] !== undefined),
      false,
      'no stack logged for an outage',
    );
  });

  it('is logged as back once a request succeeds again', async () => {
    const listening = createServer();
    await new Promise<void>((resolve) => listening.listen(dependencyPort, '127.0.0.1', resolve));
    try {
      assert.equal((await post('/api/v1/verify')).status, 200);
      assert.equal((await post('/api/v1/verify')).status, 200);
    } finally {
      await new Promise<void>((resolve) => listening.close(() => resolve()));
    }
    assert.deepEqual(
      outageLines().map((line) => line['msg']),
      [
        'database unreachable: answering 503 with Retry-After until it is back',
        'database reachable again',
      ],
    );
  });

  it('leaves any other failure a 500 with its stack logged', async () => {
    const broken = await post('/api/v1/broken');
    assert.equal(broken.status, 500);
    assert.equal(broken.headers.get('retry-after'), null);
    assert.ok(lines.some((line) => line['err'] !== undefined));
  });
});

describe('which dependency an error says is unreachable', () => {
  it('reads node-postgres, PostgreSQL and kafkajs failures, also when wrapped', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    assert.equal(unreachableDependency(refused), 'database');
    assert.equal(
      unreachableDependency(new Error('Connection terminated unexpectedly')),
      'database',
    );
    assert.equal(
      unreachableDependency(Object.assign(new Error('terminating connection'), { code: '57P01' })),
      'database',
    );
    const kafka = Object.assign(new Error('Connection error'), {
      name: 'KafkaJSNumberOfRetriesExceeded',
    });
    assert.equal(unreachableDependency(kafka), 'broker');
    assert.equal(unreachableDependency(new Error('wrapped', { cause: refused })), 'database');
    assert.equal(
      unreachableDependency(Object.assign(new Error('duplicate'), { code: '23505' })),
      undefined,
    );
    assert.equal(unreachableDependency(new TypeError('x is undefined')), undefined);
  });
});

describe('a background loop failing while its database is down', () => {
  it('says so in one line without a stack, again only every 30 s, and logs any other failure in full', () => {
    const { lines, destination } = logLines();
    let now = 0;
    const failed = loopFailureLog(
      createLogger({ service: 'spec', level: 'info', destination }),
      'relay failed; retrying',
      { relay: 'r' },
      () => now,
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    for (now = 0; now < 30_000; now += 500) failed(refused);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!['msg'], 'relay failed; retrying (database unreachable)');
    assert.equal(lines[0]!['err'], undefined);
    assert.equal(lines[0]!['relay'], 'r');
    now = 30_000;
    failed(refused);
    assert.equal(lines.length, 2);
    failed(new Error('a bug'));
    failed(new Error('a bug'));
    assert.equal(lines.length, 4);
    assert.ok(lines[3]!['err'] !== undefined);
  });
});
