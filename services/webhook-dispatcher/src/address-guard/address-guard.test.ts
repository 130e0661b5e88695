import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAddressGuard } from './address-guard.js';

const live = createAddressGuard({ httpsOnly: true, allowedNetworks: [] });

describe('the receiver address guard (SSRF)', () => {
  it('refuses loopback, private, link-local, metadata, unique-local and mapped addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
    ])
      assert.equal(live.isAllowedAddress(address), false, address);
  });

  it('accepts public unicast addresses', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111'])
      assert.equal(live.isAllowedAddress(address), true, address);
  });

  it('an allow-list opens exactly the networks it names', () => {
    const guard = createAddressGuard({
      httpsOnly: false,
      allowedNetworks: ['127.0.0.0/8', '::1', '10.9.0.0/16'],
    });
    assert.equal(guard.isAllowedAddress('127.0.0.1'), true);
    assert.equal(guard.isAllowedAddress('::ffff:127.0.0.1'), true);
    assert.equal(guard.isAllowedAddress('::1'), true);
    assert.equal(guard.isAllowedAddress('10.9.3.4'), true);
    assert.equal(guard.isAllowedAddress('10.8.3.4'), false);
    assert.equal(guard.isAllowedAddress('169.254.169.254'), false);
  });

  it('live deployments accept https:// receivers only', async () => {
    assert.equal(await live.checkUrl(new URL('http://93.184.215.14/hook')), 'HTTPS_REQUIRED');
    assert.equal(await live.checkUrl(new URL('https://93.184.215.14/hook')), undefined);
    assert.equal(live.checkBeforeConnect(new URL('http://93.184.215.14/hook')), 'HTTPS_REQUIRED');
  });

  it('names resolving to a refused address are refused at registration and at connect time', async () => {
    assert.equal(await live.checkUrl(new URL('https://localhost/hook')), 'ADDRESS_NOT_ALLOWED');
    assert.equal(await live.checkUrl(new URL('https://[::1]/hook')), 'ADDRESS_NOT_ALLOWED');
    assert.equal(live.checkBeforeConnect(new URL('https://127.0.0.1/x')), 'ADDRESS_NOT_ALLOWED');
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      live.lookup('localhost', {}, (failure) => resolve(failure)),
    );
    assert.equal(error?.name, 'AddressRefusedError');
    const test = createAddressGuard({ httpsOnly: false, allowedNetworks: ['127.0.0.0/8', '::1'] });
    const address = await new Promise<string>((resolve, reject) =>
      test.lookup('localhost', {}, (failure, resolved) =>
        failure ? reject(failure) : resolve(String(resolved)),
      ),
    );
    assert.ok(test.isAllowedAddress(address));
  });
});
