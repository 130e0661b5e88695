import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAddressJudge } from './address-judge.js';
import { parseNetwork } from './ip-address.js';

const publicOnly = createAddressJudge([]);

function assertRefused(judge: (address: string) => boolean, addresses: string[]): void {
  for (const address of addresses) assert.equal(judge(address), false, address);
}

describe('judging an address (SSRF)', () => {
  it('refuses loopback, private, link-local, metadata, unique-local, CGNAT and multicast', () => {
    assertRefused(publicOnly, [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '::',
      '::1',
      'fe80::1',
      'fd00:ec2::254',
      'ff02::1',
    ]);
  });

  it('accepts public unicast addresses, IPv4 and IPv6', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450::1'])
      assert.equal(publicOnly(address), true, address);
  });

  it('judges an IPv4-mapped address as the IPv4 address it carries', () => {
    assertRefused(publicOnly, [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe',
      '::ffff:0.0.0.0',
    ]);
    assert.equal(publicOnly('::ffff:8.8.8.8'), true);
  });

  it('refuses every other IPv6 form that carries an IPv4 address, even a public one', () => {
    assertRefused(publicOnly, [
      // IPv4-compatible ::/96: ipaddr.js calls these unicast.
      '::127.0.0.1',
      '::7f00:1',
      '::a9fe:a9fe',
      '::8.8.8.8',
      // SIIT ::ffff:0:0:0/96.
      '::ffff:0:7f00:1',
      '::ffff:0:808:808',
      // NAT64 64:ff9b::/96 and the local-use 64:ff9b:1::/48.
      '64:ff9b::127.0.0.1',
      '64:ff9b::808:808',
      '64:ff9b:1::a9fe:a9fe',
      '64:ff9b:1:ffff::1',
      // 6to4 2002::/16.
      '2002:7f00:1::1',
      '2002:808:808::1',
      // Teredo 2001::/32.
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001::1',
    ]);
  });

  it('refuses IPv6 outside plain global unicast: reserved, documentation, discard, unassigned', () => {
    assertRefused(publicOnly, [
      '2001:db8::1',
      '3fff::1',
      '100::1',
      'fec0::1',
      '5f00::1',
      '::1:7f00:1',
      '::2',
      '4000::1',
    ]);
  });

  it('reads every spelling of an address as a connection would, and refuses zone ids', () => {
    assertRefused(publicOnly, [
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      '0x7f000001',
      '127.1',
      '127.000.000.001',
      '[::ffff:7f00:1]',
      '[::127.0.0.1]',
      'fe80::1%eth0',
      '::ffff:127.0.0.1%1',
      '2606:4700:4700::1111%eth0',
      'localhost',
      '127.0.0.1/8',
      'user@8.8.8.8',
      '',
    ]);
  });

  it('an allow-list opens exactly the networks it names', () => {
    const judge = createAddressJudge(['127.0.0.0/8', '::1', '10.9.0.0/16']);
    assert.equal(judge('127.0.0.1'), true);
    assert.equal(judge('::ffff:127.0.0.1'), true);
    assert.equal(judge('::1'), true);
    assert.equal(judge('10.9.3.4'), true);
    assert.equal(judge('10.8.3.4'), false);
    assert.equal(judge('169.254.169.254'), false);
    // An IPv4 network does not open the IPv4-compatible form of its addresses.
    assert.equal(judge('::127.0.0.1'), false);
    assert.equal(judge('64:ff9b::7f00:1'), false);
  });

  it('an allowed embedding range still refuses the IPv4 addresses it may not reach', () => {
    const judge = createAddressJudge(['64:ff9b::/96', '2002::/16', '64:ff9b:1::/48']);
    assert.equal(judge('64:ff9b::808:808'), true);
    assert.equal(judge('64:ff9b::7f00:1'), false);
    assert.equal(judge('2002:808:808::1'), true);
    assert.equal(judge('2002:a9fe:a9fe::1'), false);
    assert.equal(judge('64:ff9b:1::a9fe:a9fe'), true, 'no fixed place for the IPv4 address');
    const withLoopback = createAddressJudge(['64:ff9b::/96', '127.0.0.0/8']);
    assert.equal(withLoopback('64:ff9b::7f00:1'), true);
  });

  it('reads allow-list entries as CIDRs or addresses, and throws naming any other', () => {
    assert.deepEqual(
      [parseNetwork('10.9.0.0/16').bits, parseNetwork('::1').bits, parseNetwork('127.0.0.1').bits],
      [16, 128, 32],
    );
    for (const entry of [
      '10.0.0.0/33',
      '::1/129',
      '10.0.0.0/8/1',
      '10.0.0.0/-1',
      '10.0.0.0/',
      'fe80::1%eth0/64',
      'example.com',
      'localhost/8',
    ])
      assert.throws(() => parseNetwork(entry), new RegExp(entry.replace(/[./%]/g, '\\$&')), entry);
  });
});
