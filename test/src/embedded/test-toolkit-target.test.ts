import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { participantTls, runEmbedded, type RunningEmbedded } from './fixtures.js';
import { assertEveryCasePassed, reportWhenEnded } from './scheme-report.js';

// Issue 39: the toolkit's `target` is named by the caller, so it must be no port scanner. A target
// at a loopback, private or link-local address is refused unless VOP_TEST_TARGET_ALLOWED_NETWORKS
// holds it, and every target that gives no answer gets one body, whatever the reason.

const GENEROUS = { VOP_RATE_LIMIT_TEST_PER_HOUR: '100000' };
const UNREACHABLE = {
  error: {
    code: 'TEST_EXECUTION_FAILED',
    message: 'The target could not be reached',
    details: {
      suggestion:
        "Check the URL (a loopback, private or link-local address is refused unless this deployment allows its network), that caPem signs the responder's server certificate, and that it accepts your client certificate",
    },
  },
};

async function startRun(embedded: RunningEmbedded, url: string) {
  const tls = await participantTls(embedded.service.pki);
  return embedded.client.post('/test/scheme/run', {
    testSuite: 'scheme139-25',
    generateReport: true,
    target: {
      url,
      caPem: tls.caPem,
      clientCertificate: { certPem: tls.certPem, keyPem: tls.keyPem },
    },
  });
}

/** A TCP listener on loopback: `plain` answers in plain HTTP, `silent` never says a word. */
async function listener(kind: 'plain' | 'silent') {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    if (kind === 'plain') socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => sockets.size,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('test toolkit: a caller-named target that gives no answer', () => {
  let embedded: RunningEmbedded;
  let plain: Awaited<ReturnType<typeof listener>>;
  let silent: Awaited<ReturnType<typeof listener>>;
  before(async () => {
    // Loopback allowed, as a local multi-bank setup does, so that these ports are reached at all.
    embedded = await runEmbedded({
      env: { ...GENEROUS, VOP_TEST_TARGET_ALLOWED_NETWORKS: '127.0.0.1/32' },
    });
    [plain, silent] = await Promise.all([listener('plain'), listener('silent')]);
  });
  after(async () => {
    plain?.close();
    silent?.close();
    await embedded?.stop();
  });

  it('answers one body for a closed port, a port without TLS, a silent port, a refused address', async () => {
    const closed = await closedPort();
    for (const url of [
      `https://127.0.0.1:${closed}`,
      `https://127.0.0.1:${plain.port}`,
      // The runner gives up on it after 5 s.
      `https://127.0.0.1:${silent.port}`,
      // The IPv4-compatible form of an allowed address is not in the allowed network.
      `https://[::127.0.0.1]:${plain.port}`,
      'https://169.254.169.254',
      'https://10.0.0.1:8443',
    ]) {
      const answer = await startRun(embedded, url);
      assert.equal(answer.status, 502, `${url}: ${answer.text}`);
      assert.deepEqual(answer.body, UNREACHABLE, url);
    }
    assert.ok(plain.connections() > 0, 'the allowed port without TLS was reached');
    assert.ok(silent.connections() > 0, 'the allowed silent port was reached');
  });
});

describe('test toolkit: without VOP_TEST_TARGET_ALLOWED_NETWORKS (every profile’s default)', () => {
  let embedded: RunningEmbedded;
  before(async () => {
    embedded = await runEmbedded({ env: GENEROUS });
    const loaded = await embedded.client.post('/test/data/load', {
      dataSet: 'scheme_reference_data',
      version: '1.0.0',
    });
    assert.equal(loaded.status, 200, loaded.text);
  });
  after(async () => {
    await embedded?.stop();
  });

  it('refuses this very service named as target, however its address is spelled', async () => {
    const { port } = new URL(embedded.service.url);
    for (const host of [
      '127.0.0.1',
      '127.0.0.1.',
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      '[::ffff:7f00:1]',
      '[::ffff:127.0.0.1]',
      '[::127.0.0.1]',
      '[::1]',
      // Names: refused at the connection, by the address they resolve to (or not resolved at all).
      'localhost',
      'localhost.',
    ]) {
      const answer = await startRun(embedded, `https://${host}:${port}`);
      assert.equal(answer.status, 502, `${host}: ${answer.text}`);
      assert.deepEqual(answer.body, UNREACHABLE, host);
    }
  });

  it('still runs the suite against itself, which no caller names', async () => {
    const started = await embedded.client.post('/test/scheme/run', {
      testSuite: 'scheme139-25',
      generateReport: true,
    });
    assert.equal(started.status, 202, started.text);
    const report = await reportWhenEnded(embedded.client, started.body.testRunId);
    assert.equal(report.status, 'completed');
    assert.equal(report.target, 'self');
    assertEveryCasePassed(report);
  });
});
