import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadReferenceData } from '@vop/conformance';
import { issueCertificate } from '@vop/pki';
import { eventually } from '@vop/testing';
import { participantTls, runEmbedded, type RunningEmbedded } from './fixtures.js';
import { assertEveryCasePassed, reportWhenEnded } from './scheme-report.js';

// Family I, the test toolkit, against the embedded service in a test deployment.

/** The toolkit's own budget is 100 an hour; these specs make more calls than that on purpose. */
const GENEROUS = { VOP_RATE_LIMIT_TEST_PER_HOUR: '100000' };
const load = { dataSet: 'scheme_reference_data', version: '1.0.0' };

describe('test toolkit: scheme suite, data, load, certificates, reset (test deployment)', () => {
  let embedded: RunningEmbedded;

  before(async () => {
    // The "other responder" below is this very service on loopback: a caller-named target there
    // needs its network allowed (test-toolkit-target.test.ts: refused without, and unreachable ones).
    embedded = await runEmbedded({
      env: { ...GENEROUS, VOP_TEST_TARGET_ALLOWED_NETWORKS: '127.0.0.1/32' },
    });
  });
  after(async () => {
    await embedded.stop();
  });

  it('loads the versioned reference data set once; a second load adds nothing', async () => {
    const first = await embedded.client.post('/test/data/load', load);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, {
      dataSet: 'scheme_reference_data',
      version: '1.0.0',
      accounts: 6,
      loaded: 6,
      alreadyPresent: 0,
    });
    const again = await embedded.client.post('/test/data/load', load);
    assert.deepEqual([again.body.loaded, again.body.alreadyPresent], [0, 6]);
    const unknown = await embedded.client.post('/test/data/load', { ...load, version: '9.9.9' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, 'INVALID_REQUEST');
    assert.equal(unknown.body.error.details.field, 'version');
  });

  it('runs the 131 cases of scheme139-25 against itself, each passed, running then completed', async () => {
    const started = await embedded.client.post('/test/scheme/run', {
      testSuite: 'scheme139-25',
      generateReport: true,
    });
    assert.equal(started.status, 202, started.text);
    assert.equal(started.body.status, 'running');
    assert.equal(started.body.totalTests, 131);
    assert.match(started.body.estimatedDuration, /^\d+s$/);
    const second = await embedded.client.post('/test/scheme/run', { testSuite: 'scheme139-25' });
    assert.equal(second.status, 409, second.text);
    assert.equal(second.body.error.code, 'TEST_EXECUTION_FAILED');
    assert.ok(second.body.error.details.suggestion.includes(started.body.testRunId));
    const report = await reportWhenEnded(embedded.client, started.body.testRunId);
    assert.equal(report.status, 'completed');
    assert.equal(report.target, 'self');
    assertEveryCasePassed(report);

    const junit = await embedded.client.get(
      `/test/scheme/report/${started.body.testRunId}?format=junit`,
    );
    assert.match(String(junit.headers['content-type']), /^application\/xml/);
    assert.equal(junit.text.match(/<testcase /g)?.length, 131);
    assert.equal(junit.text.match(/<failure /g), null);
    assert.match(junit.text, /<testsuite name="scheme139-25.lei" tests="28" failures="0"/);
  });

  it('runs the same suite against another responder given as target, with its certificates', async () => {
    const tls = await participantTls(embedded.service.pki);
    const ca = {
      certPem: tls.caPem,
      keyPem: await readFile(path.join(embedded.service.pki.dir, 'ca-key.pem'), 'utf8'),
    };
    const stranger = await issueCertificate(ca, {
      commonName: 'Trusted, not adhering',
      usage: 'client',
      organizationIdentifier: 'PSDDE-BAFIN-999999',
    });
    const started = await embedded.client.post('/test/scheme/run', {
      testSuite: 'scheme139-25',
      generateReport: true,
      target: {
        url: embedded.service.url,
        caPem: tls.caPem,
        clientCertificate: { certPem: tls.certPem, keyPem: tls.keyPem },
        nonParticipantCertificate: stranger,
      },
    });
    assert.equal(started.status, 202, started.text);
    const report = await reportWhenEnded(embedded.client, started.body.testRunId);
    assert.equal(report.target, new URL(embedded.service.url).origin);
    assert.equal(report.status, 'completed');
    assertEveryCasePassed(report);
  });

  it('refuses bad input in the nested format and answers an unknown run 404', async () => {
    const suite = await embedded.client.post('/test/scheme/run', { testSuite: 'other' });
    assert.equal(suite.status, 400);
    assert.equal(suite.body.error.code, 'INVALID_REQUEST');
    assert.equal(suite.body.error.details.field, 'testSuite');
    const plain = await embedded.client.post('/test/scheme/run', {
      testSuite: 'scheme139-25',
      target: { url: 'http://example.com', caPem: 'x', clientCertificate: {} },
    });
    assert.equal(plain.status, 400);
    const unknown = await embedded.client.get(
      '/test/scheme/report/6f1f6a43-5a52-4c1f-8f57-0d5d3f3d1a11',
    );
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'TEST_RUN_NOT_FOUND');
    const malformed = await embedded.client.get('/test/scheme/report/nope');
    assert.equal(malformed.status, 404);
  });

  it('generates sandbox accounts, each with a ready request that gets its expected answer', async () => {
    const answer = await embedded.client.post('/test/data/generate', {
      count: 6,
      scenarios: ['exact_match', 'no_match', 'close_match'],
    });
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.body.count, 6);
    assert.deepEqual(
      answer.body.cases.map((each: any) => each.scenario),
      ['exact_match', 'no_match', 'close_match', 'exact_match', 'no_match', 'close_match'],
    );
    for (const generated of answer.body.cases) {
      assert.match(generated.accountId, /^acc_[0-9a-f-]{36}$/);
      const verified = await eventually(
        async () => {
          const reply = await embedded.client.post(generated.request.path, generated.request.body);
          assert.equal(reply.status, 200, reply.text);
          return reply.body.partyNameMatch === 'NOAP' ? undefined : reply.body;
        },
        { timeoutMs: 30_000, intervalMs: 100, what: 'the generated account to reach matching' },
      );
      assert.equal(verified.partyNameMatch, generated.expected.partyNameMatch, generated.scenario);
      assert.equal(
        verified.matchedName === undefined ? 'absent' : 'present',
        generated.expected.matchedName,
        generated.scenario,
      );
    }
    const tooMany = await embedded.client.post('/test/data/generate', {
      count: 101,
      scenarios: ['exact_match'],
    });
    assert.equal(tooMany.status, 400);
    const unknownScenario = await embedded.client.post('/test/data/generate', {
      count: 1,
      scenarios: ['maybe_match'],
    });
    assert.equal(unknownScenario.status, 400);
  });

  it('runs one bounded load run at a time against its own verification path, and reports it', async () => {
    // Before any load run: the service's own figures (test-toolkit-first-contact.test.ts).
    const before = await embedded.client.get('/test/performance/metrics');
    assert.equal(before.status, 200, before.text);
    assert.equal(before.body.source, 'service');
    for (const bad of [
      { concurrentUsers: 500, duration: '3s', rampUpTime: '1s' },
      { concurrentUsers: 2, duration: '600s', rampUpTime: '1s' },
      { concurrentUsers: 2, duration: '3 seconds', rampUpTime: '1s' },
      { concurrentUsers: 2, duration: '3s', rampUpTime: '61s' },
      { concurrentUsers: 2, duration: '0s', rampUpTime: '0s' },
    ]) {
      const refused = await embedded.client.post('/test/performance/load', bad);
      assert.equal(refused.status, 400, JSON.stringify(bad));
      assert.equal(refused.body.error.code, 'INVALID_REQUEST');
    }
    const started = await embedded.client.post('/test/performance/load', {
      concurrentUsers: 2,
      duration: '3s',
      rampUpTime: '1s',
    });
    assert.equal(started.status, 202, started.text);
    assert.equal(started.body.status, 'running');
    const second = await embedded.client.post('/test/performance/load', {
      concurrentUsers: 1,
      duration: '2s',
      rampUpTime: '0s',
    });
    assert.equal(second.status, 409);
    assert.equal(second.body.error.code, 'TEST_EXECUTION_FAILED');
    assert.match(second.body.error.details.suggestion, /metrics/);
    const figures = await eventually(
      async () => {
        const answer = await embedded.client.get('/test/performance/metrics');
        assert.equal(answer.status, 200, answer.text);
        return answer.body.status === 'running' ? undefined : answer.body;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'the load run to end' },
    );
    assert.equal(figures.source, 'load-run');
    assert.equal(figures.loadRunId, started.body.loadRunId);
    assert.equal(figures.status, 'completed');
    assert.ok(figures.totalRequests > 0);
    assert.ok(figures.requestsPerSecond > 0);
    assert.equal(figures.successRate, '100.0%');
    assert.match(figures.averageResponseTime, /^\d+ ms$/);
    assert.equal(figures.activeConnections, 0);
  });

  it('shows the sandbox trust chain, parsed', async () => {
    const answer = await embedded.client.get('/test/certificates/chain');
    assert.equal(answer.status, 200, answer.text);
    const [root, server, client] = answer.body.certificates;
    assert.deepEqual(
      answer.body.certificates.map((each: any) => each.role),
      ['root', 'server', 'client'],
    );
    assert.match(root.subject, /VoP Development CA/);
    assert.equal(root.issuer, root.subject);
    assert.equal(server.issuer, root.subject);
    assert.equal(client.issuer, root.subject);
    assert.match(root.pem, /^-----BEGIN CERTIFICATE-----/);
    assert.ok(Date.parse(server.validFrom) < Date.now() && Date.now() < Date.parse(server.validTo));
  });

  it('runs each certificate scenario through the edge validator, and a certificate of your own', async () => {
    const answer = await embedded.client.post('/test/certificates/validate', {
      scenarios: ['valid_certificate', 'expired_certificate', 'invalid_chain'],
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body.results, [
      {
        scenario: 'valid_certificate',
        expected: 'accepted',
        actual: 'accepted',
        passed: true,
      },
      {
        scenario: 'expired_certificate',
        expected: 'refused: EXPIRED',
        actual: 'refused: EXPIRED',
        passed: true,
      },
      {
        scenario: 'invalid_chain',
        expected: 'refused: UNTRUSTED',
        actual: 'refused: UNTRUSTED',
        passed: true,
      },
    ]);
    const tls = await participantTls(embedded.service.pki);
    const own = await embedded.client.post('/test/certificates/validate', {
      certificatePem: tls.certPem,
    });
    assert.deepEqual(own.body, {
      results: [],
      submitted: { accepted: true, participantId: 'PSDXX-DEV-000001' },
    });
    const serverCertificate = await readFile(embedded.service.pki.serverCertPath, 'utf8');
    const wrongUse = await embedded.client.post('/test/certificates/validate', {
      certificatePem: serverCertificate,
    });
    assert.deepEqual(wrongUse.body.submitted, { accepted: false, reason: 'NOT_FOR_CLIENT_AUTH' });
    const garbage = await embedded.client.post('/test/certificates/validate', {
      certificatePem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
    });
    assert.deepEqual(garbage.body.submitted, { accepted: false, reason: 'MALFORMED' });
    const nothing = await embedded.client.post('/test/certificates/validate', {});
    assert.equal(nothing.status, 400);
    const unknown = await embedded.client.post('/test/certificates/validate', {
      scenarios: ['revoked'],
    });
    assert.equal(unknown.status, 400);
  });

  it('without generateReport keeps the summary and leaves the case list out', async () => {
    const started = await embedded.client.post('/test/scheme/run', {
      testSuite: 'scheme139-25',
      generateReport: false,
    });
    assert.equal(started.status, 202, started.text);
    const report = await reportWhenEnded(embedded.client, started.body.testRunId);
    assert.equal(report.status, 'completed');
    assert.deepEqual(report.cases, []);
    const junit = await embedded.client.get(
      `/test/scheme/report/${started.body.testRunId}?format=junit`,
    );
    assert.equal(junit.status, 404);
    assert.equal(junit.body.error.code, 'TEST_EXECUTION_FAILED');
    assert.match(junit.body.error.details.suggestion, /generateReport/);
    assert.deepEqual(report.summary, {
      totalTests: 131,
      passed: 131,
      failed: 0,
      skipped: 0,
      compliance: '100.0%',
    });
  });

  it('resets only sandbox data: test accounts go, the bank’s own records stay; the data reloads', async () => {
    const own = await embedded.admin.post('/accounts', {
      iban: 'DE89370400440532013000',
      name: 'Bank Own Record',
    });
    assert.equal(own.status, 201, own.text);
    const reset = await embedded.client.post('/test/environment/reset', {
      resetDatabase: true,
      reloadTestData: true,
    });
    assert.equal(reset.status, 200, reset.text);
    assert.equal(reset.body.status, 'reset');
    // The six reference accounts and the six generated ones.
    assert.equal(reset.body.accountsRemoved, 12);
    assert.deepEqual([reset.body.reloaded.loaded, reset.body.reloaded.alreadyPresent], [6, 0]);
    const stillThere = await embedded.admin.get(`/api/accounts/${own.body.id}`);
    assert.equal(stillThere.status, 200, stillThere.text);
    const data = await loadReferenceData('1.0.0');
    const noReload = await embedded.client.post('/test/environment/reset', {
      resetDatabase: true,
      reloadTestData: false,
    });
    assert.deepEqual(noReload.body, { status: 'reset', accountsRemoved: data.accounts.length });
    const bad = await embedded.client.post('/test/environment/reset', { resetDatabase: 'yes' });
    assert.equal(bad.status, 400);
    // Two resets at once (a client that gave up on a long one sends another): both answer, and
    // together they remove each test account once.
    const generated = await embedded.client.post('/test/data/generate', {
      count: 40,
      scenarios: ['exact_match'],
    });
    assert.equal(generated.status, 201, generated.text);
    const together = await Promise.all(
      [1, 2].map(() =>
        embedded.client.post('/test/environment/reset', {
          resetDatabase: true,
          reloadTestData: false,
        }),
      ),
    );
    for (const answer of together) assert.equal(answer.status, 200, answer.text);
    assert.equal(
      together.reduce((sum, answer) => sum + Number(answer.body.accountsRemoved), 0),
      40,
    );
  });
});

describe('test toolkit: a run survives a restart', () => {
  it('a run the service stopped under is reported interrupted, its recorded cases kept', async () => {
    const first = await runEmbedded({ env: GENEROUS, inMemory: false });
    let testRunId: string;
    let recordedBeforeStop: number;
    try {
      assert.equal((await first.client.post('/test/data/load', load)).status, 200);
      const started = await first.client.post('/test/scheme/run', {
        testSuite: 'scheme139-25',
        generateReport: true,
      });
      assert.equal(started.status, 202, started.text);
      testRunId = started.body.testRunId;
      recordedBeforeStop = await eventually(
        async () => {
          const answer = await first.client.get(`/test/scheme/report/${testRunId}`);
          return answer.body.cases.length > 0 ? answer.body.cases.length : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 20, what: 'a first recorded case' },
      );
    } finally {
      await first.stop({ keepData: true });
    }
    const second = await runEmbedded({ env: GENEROUS, inMemory: false, dataDir: first.dataDir });
    try {
      const answer = await second.client.get(`/test/scheme/report/${testRunId}`);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.status, 'interrupted');
      assert.match(answer.body.interruption, /stopped during the run/);
      assert.ok(answer.body.cases.length >= recordedBeforeStop);
      assert.ok(answer.body.cases.length < 131, 'the stop came before the last case');
      assert.equal(answer.body.summary.totalTests, 131);
      for (const recorded of answer.body.cases)
        assert.equal(recorded.outcome, 'passed', recorded.id);
    } finally {
      await second.stop();
    }
  });
});

describe('test toolkit: only in test deployments, on its own budget', () => {
  it('answers 404 on every /test/* path of a live deployment', async () => {
    const live = await runEmbedded({ env: { VOP_ENVIRONMENT: 'live' } });
    try {
      for (const [method, route] of [
        ['POST', '/test/scheme/run'],
        ['GET', '/test/scheme/report/6f1f6a43-5a52-4c1f-8f57-0d5d3f3d1a11'],
        ['POST', '/test/data/generate'],
        ['POST', '/test/data/load'],
        ['POST', '/test/performance/load'],
        ['GET', '/test/performance/metrics'],
        ['GET', '/test/certificates/chain'],
        ['POST', '/test/certificates/validate'],
        ['POST', '/test/environment/reset'],
      ] as const) {
        const answer = await live.client.request(method, route, {
          ...(method === 'POST' && { body: { testSuite: 'scheme139-25' } }),
        });
        assert.equal(answer.status, 404, `${method} ${route}`);
      }
    } finally {
      await live.stop();
    }
  });

  it('allows 100 requests an hour per credential, then 429 RATE_LIMIT_EXCEEDED with Retry-After', async () => {
    const embedded = await runEmbedded();
    try {
      // The first of the 100: a run, which loads the reference data itself.
      const run = await embedded.client.post('/test/scheme/run', {
        testSuite: 'scheme139-25',
        generateReport: true,
      });
      assert.equal(run.status, 202, run.text);
      for (let request = 1; request < 100; request++) {
        const answer = await embedded.client.get('/test/performance/metrics');
        assert.equal(answer.status, 200, `request ${request + 1}`);
      }
      const limited = await embedded.client.get('/test/certificates/chain');
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error.code, 'RATE_LIMIT_EXCEEDED');
      const retryAfter = String(limited.headers['retry-after']);
      assert.match(retryAfter, /^\d+$/);
      assert.ok(Number(retryAfter) > 0 && Number(retryAfter) <= 3600);
      assert.equal(limited.body.error.details.retry_after, Number(retryAfter));
      // Another credential has a budget of its own.
      const other = await embedded.admin.get('/test/performance/metrics');
      assert.equal(other.status, 200);
    } finally {
      await embedded.stop();
    }
  });
});
