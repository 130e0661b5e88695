import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { createAddressGuard } from '@vop/address-guard';
import { runConformance, TARGET_UNREACHABLE, type ConnectionGuard } from './runner.js';
import { PLACEHOLDER_FIXTURE } from './placeholder-fixture.test-support.js';
import type { ConformanceCase } from './types.js';

// The toolkit's `target` is named by a caller: a guarded run must not tell a closed port from an
// open one, nor either from an address it may not reach.

const fixture = PLACEHOLDER_FIXTURE;
const probe: ConformanceCase = {
  id: 'PROBE',
  group: 'headers',
  description: 'one request',
  credential: 'none',
  request: { method: 'POST', path: '/vop/v1/payee-verifications', headers: {}, body: {} },
  expect: { status: 200 },
};
const caPem = tls.rootCertificates[0] as string;
const loopbackAllowed = createAddressGuard({ httpsOnly: true, allowedNetworks: ['127.0.0.0/8'] });
const publicOnly = createAddressGuard({ httpsOnly: true, allowedNetworks: [] });

async function failuresOf(baseUrl: string, guard?: ConnectionGuard) {
  const causes: Error[] = [];
  const [result] = await runConformance({
    baseUrl,
    caPem,
    credentials: {},
    fixture,
    cases: [probe],
    timeoutMs: 2000,
    ...(guard && { guard, onUnreachable: (cause: Error) => causes.push(cause) }),
  });
  return { failures: result?.failures, status: result?.status, causes };
}

describe('a guarded conformance run against a target it cannot reach', () => {
  let plainServer: net.Server;
  let openPort = 0;
  let closedPort = 0;
  let connections = 0;
  before(async () => {
    plainServer = net.createServer((socket) => {
      connections++;
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    });
    await new Promise<void>((resolve) => plainServer.listen(0, '127.0.0.1', resolve));
    openPort = (plainServer.address() as net.AddressInfo).port;
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
  });
  after(() => {
    plainServer.close();
  });

  it('unguarded (the CLI), the failure names the cause, which tells the ports apart', async () => {
    const closed = await failuresOf(`https://127.0.0.1:${closedPort}`);
    const open = await failuresOf(`https://127.0.0.1:${openPort}`);
    assert.match(String(closed.failures), /ECONNREFUSED/);
    assert.notDeepEqual(closed.failures, open.failures);
  });

  it('guarded, a closed port, an open port without TLS and a refused address fail alike', async () => {
    const connectionsBefore = connections;
    const refusedLiteral = await failuresOf(`https://127.0.0.1:${openPort}`, publicOnly);
    const refusedName = await failuresOf(`https://localhost:${openPort}`, publicOnly);
    const refusedMapped = await failuresOf(`https://[::ffff:7f00:1]:${openPort}`, publicOnly);
    assert.equal(connections, connectionsBefore, 'nothing reached the refused address');
    const closed = await failuresOf(`https://127.0.0.1:${closedPort}`, loopbackAllowed);
    const open = await failuresOf(`https://127.0.0.1:${openPort}`, loopbackAllowed);
    assert.ok(connections > connectionsBefore, 'the allowed address was reached');
    for (const each of [refusedLiteral, refusedName, refusedMapped, closed, open]) {
      assert.deepEqual(each.failures, [TARGET_UNREACHABLE]);
      assert.equal(each.status, undefined);
      assert.equal(each.causes.length, 1, 'the cause goes to the log');
    }
    assert.match(String(closed.causes[0]), /ECONNREFUSED/);
    assert.match(String(refusedName.causes[0]), /ADDRESS_NOT_ALLOWED/);
  });
});
