import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REFERENCE_DATA_VERSIONS } from '@vop/conformance';
import { runEmbedded, type RunningEmbedded } from './fixtures.js';
import { assertEveryCasePassed, reportWhenEnded } from './scheme-report.js';

// Issue 43, item 2: the toolkit as the specification describes it, on a deployment nobody has
// prepared: no data load first, no load run first, a version as people write it.

describe('test toolkit on first contact (test deployment, nothing loaded)', () => {
  let embedded: RunningEmbedded;

  before(async () => {
    embedded = await runEmbedded({ env: { VOP_RATE_LIMIT_TEST_PER_HOUR: '100000' } });
  });
  after(async () => {
    await embedded.stop();
  });

  it("answers /test/performance/metrics before any load run with the service's own figures", async () => {
    // Traffic of its own to count: two answered, one refused.
    assert.equal((await embedded.client.get('/health')).status, 200);
    assert.equal((await embedded.client.get('/health')).status, 200);
    assert.equal((await embedded.client.get('/test/scheme/report/nope')).status, 404);
    const metrics = await embedded.client.get('/test/performance/metrics');
    assert.equal(metrics.status, 200, metrics.text);
    assert.equal(metrics.body.source, 'service');
    assert.equal(metrics.body.loadRunId, undefined);
    assert.ok(metrics.body.totalRequests >= 3, metrics.text);
    assert.ok(metrics.body.requestsPerSecond > 0, metrics.text);
    assert.match(metrics.body.averageResponseTime, /^\d+ ms$/);
    const rate = Number(/^(\d{1,3}\.\d)%$/.exec(metrics.body.successRate)?.[1]);
    assert.ok(rate > 0 && rate < 100, `one of three refused: ${metrics.body.successRate}`);
    // This very request's connection is open while it is answered.
    assert.ok(metrics.body.activeConnections >= 1, metrics.text);
    assert.ok(!Number.isNaN(Date.parse(metrics.body.since)));
  });

  it('runs the suite against itself without a prior data load, and the report says it loaded the data', async () => {
    const started = await embedded.client.post('/test/scheme/run', {
      testSuite: 'scheme139-25',
      generateReport: true,
    });
    assert.equal(started.status, 202, started.text);
    const report = await reportWhenEnded(embedded.client, started.body.testRunId);
    assert.equal(report.status, 'completed');
    assertEveryCasePassed(report);
    assert.deepEqual(report.referenceData, {
      dataSet: 'scheme_reference_data',
      version: REFERENCE_DATA_VERSIONS[REFERENCE_DATA_VERSIONS.length - 1],
      accounts: 6,
      loaded: 6,
      alreadyPresent: 0,
    });
    const again = await embedded.client.post('/test/scheme/run', { testSuite: 'scheme139-25' });
    assert.equal(again.status, 202, again.text);
    const second = await reportWhenEnded(embedded.client, again.body.testRunId);
    assert.deepEqual([second.referenceData.loaded, second.referenceData.alreadyPresent], [0, 6]);
  });

  it('takes a data version as 1.0, 1.0.0 or latest, and refuses an unknown one with the known ones', async () => {
    for (const version of ['1.0', '1.0.0', 'latest', 'v1.0.0']) {
      const loaded = await embedded.client.post('/test/data/load', {
        dataSet: 'scheme_reference_data',
        version,
      });
      assert.equal(loaded.status, 200, `${version}: ${loaded.text}`);
      assert.equal(loaded.body.version, '1.0.0', version);
    }
    for (const version of ['9.9', '1.0.0.0', 'newest']) {
      const unknown = await embedded.client.post('/test/data/load', {
        dataSet: 'scheme_reference_data',
        version,
      });
      assert.equal(unknown.status, 400, unknown.text);
      assert.equal(unknown.body.error.code, 'INVALID_REQUEST');
      assert.equal(unknown.body.error.details.field, 'version');
      for (const known of [...REFERENCE_DATA_VERSIONS, 'latest'])
        assert.ok(unknown.body.error.details.suggestion.includes(known), unknown.text);
    }
  });
});
