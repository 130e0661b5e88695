import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createAddressGuard, type AddressGuard } from './address-guard.js';

const live = createAddressGuard({ httpsOnly: true, allowedNetworks: [] });
const plain = createAddressGuard({ httpsOnly: false, allowedNetworks: [] });

function lookupError(guard: AddressGuard, hostname: string) {
  return new Promise<NodeJS.ErrnoException | null>((resolve) =>
    guard.lookup(hostname, {}, (failure) => resolve(failure)),
  );
}

describe('the address guard on URLs and connections', () => {
  it('live deployments accept https:// URLs only', async () => {
    assert.equal(await live.checkUrl(new URL('http://93.184.215.14/hook')), 'HTTPS_REQUIRED');
    assert.equal(await live.checkUrl(new URL('https://93.184.215.14/hook')), undefined);
    assert.equal(live.checkBeforeConnect(new URL('http://93.184.215.14/hook')), 'HTTPS_REQUIRED');
    assert.equal(live.checkBeforeConnect(new URL('https://93.184.215.14/hook')), undefined);
  });

  it('refuses loopback and metadata addresses however the URL spells them', async () => {
    for (const url of [
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://0x7f000001/',
      'http://127.1/',
      'http://127.0.0.1./',
      'http://[::ffff:7f00:1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::127.0.0.1]/',
      'http://[::a9fe:a9fe]/',
      'http://[::ffff:0:a9fe:a9fe]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[64:ff9b:1::a9fe:a9fe]/',
      'http://[2002:a9fe:a9fe::]/',
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
      'http://[::1]/',
      'http://0.0.0.0/',
    ]) {
      assert.equal(plain.checkBeforeConnect(new URL(url)), 'ADDRESS_NOT_ALLOWED', url);
      assert.equal(await plain.checkUrl(new URL(url)), 'ADDRESS_NOT_ALLOWED', url);
    }
  });

  it('a zone id never reaches the guard through a URL: the URL itself is invalid', () => {
    assert.throws(() => new URL('http://[fe80::1%25eth0]/'));
    assert.throws(() => new URL('http://[::ffff:7f00:1%25lo]/'));
  });

  it('names resolving to loopback are refused at the URL and at connect time', async () => {
    assert.equal(await live.checkUrl(new URL('https://localhost/hook')), 'ADDRESS_NOT_ALLOWED');
    assert.notEqual(await live.checkUrl(new URL('https://localhost./hook')), undefined);
    for (const hostname of ['localhost', 'localhost.', '0x7f.1', '2130706433'])
      assert.ok(await lookupError(live, hostname), hostname);
    assert.equal((await lookupError(live, 'localhost'))?.name, 'AddressRefusedError');
  });

  it('with the allow-list, a name resolving to an allowed address resolves', async () => {
    const test = createAddressGuard({ httpsOnly: false, allowedNetworks: ['127.0.0.0/8', '::1'] });
    const address = await new Promise<string>((resolve, reject) =>
      test.lookup('localhost', {}, (failure, resolved) =>
        failure ? reject(failure) : resolve(String(resolved)),
      ),
    );
    assert.ok(test.isAllowedAddress(address));
    assert.equal(await test.checkUrl(new URL('http://localhost/hook')), undefined);
  });

  it('throws on an allow-list entry that is not a network', () => {
    assert.throws(
      () => createAddressGuard({ httpsOnly: true, allowedNetworks: ['127.0.0.0/40'] }),
      /127\.0\.0\.0\/40/,
    );
  });
});

describe('the address guard on a real connection', () => {
  let server: net.Server;
  let port = 0;
  let connections = 0;
  before(async () => {
    server = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('fails a request to a name resolving to loopback before any connection is made', async () => {
    const agent = new http.Agent({ lookup: plain.lookup });
    const error = await new Promise<Error>((resolve) => {
      const request = http.get(`http://localhost:${port}/`, { agent }, () =>
        resolve(new Error('answered')),
      );
      request.on('error', resolve);
    });
    agent.destroy();
    assert.equal(error.name, 'AddressRefusedError');
    assert.equal(connections, 0);
  });
});
