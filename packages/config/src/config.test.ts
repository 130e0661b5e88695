import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './index.js';

/** loadConfig refuses `value` for the variable `name`, and its error names the variable. */
function assertRefused(name: string, value: string, message = `${name}=${value}`): void {
  assert.throws(
    () => loadConfig({ [name]: value }),
    (error: unknown) =>
      error instanceof ConfigError && error.issues.some((issue) => issue.startsWith(name)),
    message,
  );
}

describe('loadConfig', () => {
  it('given no settings, then the development defaults, no forwarding and no internal secret', () => {
    const config = loadConfig({});
    assert.deepEqual(config.VOP_RATE_LIMITS, { default: 6000 });
    assert.deepEqual(config.VOP_SERVICE_URLS, {});
    assert.equal(config.VOP_INTERNAL_SECRET, undefined);
  });

  it('given JSON settings, then they are parsed; malformed or unknown ones name the variable', () => {
    const config = loadConfig({
      VOP_SERVICE_URLS: '{"matching":"http://127.0.0.1:9464"}',
      VOP_RATE_LIMITS: '{"default":10,"PSDDE-BAFIN-1":20}',
    });
    assert.deepEqual(config.VOP_SERVICE_URLS, { matching: 'http://127.0.0.1:9464' });
    assert.deepEqual(config.VOP_RATE_LIMITS, { default: 10, 'PSDDE-BAFIN-1': 20 });
    for (const [name, value] of [
      ['VOP_SERVICE_URLS', '{"billing":"http://127.0.0.1:1"}'],
      ['VOP_SERVICE_URLS', 'not json'],
      ['VOP_RATE_LIMITS', '{"default":-1}'],
      // Without a default every participant not listed would go unbudgeted.
      ['VOP_RATE_LIMITS', '{"PSDDE-BAFIN-1":20}'],
      ['VOP_INTERNAL_SECRET', 'short'],
    ] as const) {
      assertRefused(name, value, name);
    }
  });

  it('given no Kafka fetch wait, then an idle fetch waits 1 s; one outside 100 ms–10 s is refused', () => {
    assert.equal(loadConfig({}).VOP_KAFKA_FETCH_WAIT_MS, 1_000);
    assert.equal(loadConfig({ VOP_KAFKA_FETCH_WAIT_MS: '5000' }).VOP_KAFKA_FETCH_WAIT_MS, 5_000);
    for (const value of ['50', '20000', 'soon']) assertRefused('VOP_KAFKA_FETCH_WAIT_MS', value);
  });

  it('given no batch settings, then both matching roles, the batch processes at nice 10, no pacing', () => {
    const config = loadConfig({});
    assert.deepEqual(config.VOP_MATCHING_ROLES, ['single', 'batch']);
    assert.equal(config.VOP_BATCH_NICE, 10);
    assert.equal(config.VOP_ANALYTICS_NICE, 10);
    assert.equal(config.VOP_BATCH_PACING, false);
    assert.equal(config.VOP_SINGLE_CHECKS_DECIDED_BY, 'gateway');
    assert.equal(config.VOP_BATCH_ENTRIES_DECIDED_BY, 'batch');
    assert.equal(config.VOP_RECORDING_GATHER_MS, 5);
  });

  it('given no embedded gathering time, then rounds do not wait; 25 makes them; past 1000 ms it is refused', () => {
    assert.equal(loadConfig({}).VOP_EMBEDDED_RECORDING_GATHER_MS, 0);
    assert.equal(
      loadConfig({ VOP_EMBEDDED_RECORDING_GATHER_MS: '25' }).VOP_EMBEDDED_RECORDING_GATHER_MS,
      25,
    );
    for (const value of ['-1', '1001', 'later'])
      assertRefused('VOP_EMBEDDED_RECORDING_GATHER_MS', value);
  });

  it('given a gathering time for the recording rounds, then it is read; outside 0-1000 ms it names the variable', () => {
    assert.equal(loadConfig({ VOP_RECORDING_GATHER_MS: '0' }).VOP_RECORDING_GATHER_MS, 0);
    for (const value of ['-1', '1001', 'soon']) assertRefused('VOP_RECORDING_GATHER_MS', value);
  });

  it('given no least import share, then an import beside checks keeps a twentieth of its pace; outside 0.01-1 it names the variable', () => {
    assert.equal(loadConfig({}).VOP_IMPORT_LEAST_SHARE, 0.05);
    assert.equal(loadConfig({ VOP_IMPORT_LEAST_SHARE: '1' }).VOP_IMPORT_LEAST_SHARE, 1);
    for (const value of ['0', '0.005', '1.5', 'some'])
      assertRefused('VOP_IMPORT_LEAST_SHARE', value);
  });

  it('given no import share, then an import takes four fifths of the time while checks come; outside 0.05-1 it names the variable', () => {
    assert.equal(loadConfig({}).VOP_IMPORT_SHARE, 0.8);
    assert.equal(loadConfig({ VOP_IMPORT_SHARE: '0.5' }).VOP_IMPORT_SHARE, 0.5);
    for (const value of ['0', '1.5', 'half']) assertRefused('VOP_IMPORT_SHARE', value);
  });

  it('given a role per process, then it is read; an unknown role or nice names the variable', () => {
    const config = loadConfig({
      VOP_MATCHING_ROLES: 'batch',
      VOP_BATCH_NICE: '0',
      VOP_ANALYTICS_NICE: '5',
      VOP_BATCH_PACING: 'true',
    });
    assert.deepEqual(config.VOP_MATCHING_ROLES, ['batch']);
    assert.equal(config.VOP_BATCH_NICE, 0);
    assert.equal(config.VOP_ANALYTICS_NICE, 5);
    assert.equal(config.VOP_BATCH_PACING, true);
    for (const [name, value] of [
      ['VOP_MATCHING_ROLES', 'single,bulk'],
      ['VOP_MATCHING_ROLES', ''],
      ['VOP_BATCH_NICE', '20'],
      ['VOP_BATCH_NICE', '-5'],
      ['VOP_ANALYTICS_NICE', '20'],
      ['VOP_ANALYTICS_NICE', 'low'],
      ['VOP_BATCH_PACING', 'yes'],
      ['VOP_SINGLE_CHECKS_DECIDED_BY', 'batch'],
      ['VOP_BATCH_ENTRIES_DECIDED_BY', 'gateway'],
    ] as const) {
      assertRefused(name, value);
    }
  });

  it('given no toolkit allow-list, then none in any profile; entries that are no network name the variable', () => {
    for (const VOP_PROFILE of ['development', 'production'])
      assert.deepEqual(loadConfig({ VOP_PROFILE }).VOP_TEST_TARGET_ALLOWED_NETWORKS, []);
    const config = loadConfig({
      VOP_TEST_TARGET_ALLOWED_NETWORKS: '127.0.0.1/32, ::1,10.9.0.0/16',
    });
    assert.deepEqual(config.VOP_TEST_TARGET_ALLOWED_NETWORKS, [
      '127.0.0.1/32',
      '::1',
      '10.9.0.0/16',
    ]);
    for (const value of [
      'localhost',
      '127.0.0.1/33',
      '::1/129',
      '10.0.0.0/8/8',
      'fe80::1%eth0',
      '0x7f.1',
    ])
      assertRefused('VOP_TEST_TARGET_ALLOWED_NETWORKS', value);
  });

  it('given no test budget or connection cap, then 6,000 checks a minute per participant and 4,096 connections; bad ones name the variable', () => {
    const defaults = loadConfig({});
    assert.deepEqual(defaults.VOP_TEST_RATE_LIMITS, { default: 6000 });
    assert.equal(defaults.VOP_MAX_CONNECTIONS, 4096);
    const set = loadConfig({
      VOP_TEST_RATE_LIMITS: '{"default":600,"PSDDE-BAFIN-1":1200}',
      VOP_MAX_CONNECTIONS: '512',
    });
    assert.deepEqual(set.VOP_TEST_RATE_LIMITS, { default: 600, 'PSDDE-BAFIN-1': 1200 });
    assert.equal(set.VOP_MAX_CONNECTIONS, 512);
    for (const [name, value] of [
      ['VOP_TEST_RATE_LIMITS', '{"PSDDE-BAFIN-1":10}'],
      ['VOP_TEST_RATE_LIMITS', '{"default":0}'],
      ['VOP_TEST_RATE_LIMITS', 'many'],
      ['VOP_MAX_CONNECTIONS', '0'],
      ['VOP_MAX_CONNECTIONS', '1.5'],
      ['VOP_MAX_CONNECTIONS', 'lots'],
    ] as const)
      assertRefused(name, value);
  });
});
