import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ensureDevPki, issueCertificate, type PemPair } from '@vop/pki';
import {
  createTestDatabase,
  eventually,
  freePort,
  httpsClient,
  requireEnv,
  startServiceProcess,
  type HttpsClient,
  type ServiceProcess,
  type TestDatabase,
  createTestNamespace,
  type TestNamespace,
} from '@vop/testing';
import { assertEveryCasePassed, reportWhenEnded } from '../embedded/scheme-report.js';
import { referenceDataAnswered } from '../reference-data-ready.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const main = (service: string) => path.join(repoRoot, `services/${service}/dist/main.js`);

/**
 * Issue 13 in the distributed run: the gateway process (PostgreSQL, Kafka, the development CA as the
 * sandbox CA) runs the scheme suite through its own edge while matching is a process of its own; a
 * run the gateway crashed under is reported interrupted once it is back.
 */
describe('distributed run: the test toolkit on real Kafka and PostgreSQL', () => {
  const processes: ServiceProcess[] = [];
  const databases: TestDatabase[] = [];
  let gatewayEnv: Record<string, string>;
  let client: HttpsClient;
  let dataDir: string;
  let gatewayUrl: string;
  let targetTls: {
    caPem: string;
    clientCertificate: PemPair;
    nonParticipantCertificate: PemPair;
  };

  const startGateway = () => {
    const gateway = startServiceProcess('gateway', main('gateway'), gatewayEnv);
    processes.push(gateway);
    return gateway;
  };
  const gatewayReady = () =>
    eventually(
      async () => {
        for (const process of processes)
          if (process.child.exitCode !== null && process.child.signalCode === null)
            throw new Error(`${process.name} exited:\n${process.output()}`);
        const answer = await client.get('/readyz').catch(() => undefined);
        return answer?.status === 200 ? true : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200, what: 'gateway ready' },
    );

  let namespace: TestNamespace;

  before(async () => {
    const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS');
    namespace = createTestNamespace('e2e', brokers);
    const gatewayDatabase = await createTestDatabase('e2e_tk_gateway');
    const matchingDatabase = await createTestDatabase('e2e_tk_matching');
    databases.push(gatewayDatabase, matchingDatabase);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-e2e-toolkit-'));
    const pki = await ensureDevPki(dataDir);
    const common = {
      KAFKA_BROKERS: brokers,
      VOP_KAFKA_NAMESPACE: namespace.name,
      VOP_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      VOP_INTERNAL_SECRET: randomUUID() + randomUUID(),
    };
    const matchingPort = await freePort();
    processes.push(
      startServiceProcess('matching', main('matching'), {
        ...common,
        DATABASE_URL: matchingDatabase.url,
        VOP_PORT: String(matchingPort),
        VOP_KEYSTORE_DATABASE_URL: gatewayDatabase.url,
      }),
    );
    const gatewayPort = await freePort();
    gatewayEnv = {
      ...common,
      DATABASE_URL: gatewayDatabase.url,
      VOP_PORT: String(gatewayPort),
      VOP_SERVICE_URLS: JSON.stringify({ matching: `http://127.0.0.1:${matchingPort}` }),
      VOP_RATE_LIMIT_TEST_PER_HOUR: '100000',
      // The gateway names itself as a target below, as a local multi-bank setup names its banks.
      VOP_TEST_TARGET_ALLOWED_NETWORKS: '127.0.0.1/32',
    };
    startGateway();
    gatewayUrl = `https://127.0.0.1:${gatewayPort}`;
    const caPem = await readFile(pki.caPath, 'utf8');
    const caKeyPem = await readFile(path.join(pki.dir, 'ca-key.pem'), 'utf8');
    targetTls = {
      caPem,
      clientCertificate: {
        certPem: await readFile(pki.clientCertPath, 'utf8'),
        keyPem: await readFile(pki.clientKeyPath, 'utf8'),
      },
      nonParticipantCertificate: await issueCertificate(
        { certPem: caPem, keyPem: caKeyPem },
        {
          commonName: 'Trusted, not adhering',
          usage: 'client',
          organizationIdentifier: 'PSDDE-BAFIN-999999',
        },
      ),
    };
    client = httpsClient({
      baseUrl: gatewayUrl,
      caPem: targetTls.caPem,
      certPem: targetTls.clientCertificate.certPem,
      keyPem: targetTls.clientCertificate.keyPem,
    });
    await gatewayReady();
    const loaded = await client.post('/test/data/load', {
      dataSet: 'scheme_reference_data',
      version: '1.0.0',
    });
    assert.equal(loaded.status, 200, loaded.text);
    // The accounts reach the gateway's copy through Kafka; the first consumer-group join can take a while.
    await referenceDataAnswered(client, 90_000);
  });

  after(async () => {
    client?.close();
    await Promise.all(processes.map((process) => process.stop()));
    for (const database of databases) await database.drop();
    await namespace?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('runs the 131 cases through the gateway process, each passed', async () => {
    const started = await client.post('/test/scheme/run', {
      testSuite: 'scheme139-25',
      generateReport: true,
    });
    assert.equal(started.status, 202, started.text);
    const report = await reportWhenEnded(client, started.body.testRunId);
    assert.equal(report.status, 'completed');
    assertEveryCasePassed(report);
  });

  it('runs against a target in VOP_TEST_TARGET_ALLOWED_NETWORKS, refuses one outside it', async () => {
    const run = (url: string) =>
      client.post('/test/scheme/run', {
        testSuite: 'scheme139-25',
        generateReport: true,
        target: { url, ...targetTls },
      });
    const { port } = new URL(gatewayUrl);
    for (const url of [`https://[::127.0.0.1]:${port}`, `https://10.0.0.1:${port}`]) {
      const refused = await run(url);
      assert.equal(refused.status, 502, `${url}: ${refused.text}`);
      assert.equal(refused.body.error.code, 'TEST_EXECUTION_FAILED');
      assert.equal(refused.body.error.message, 'The target could not be reached');
    }
    const started = await run(gatewayUrl);
    assert.equal(started.status, 202, started.text);
    const report = await reportWhenEnded(client, started.body.testRunId);
    assert.equal(report.target, gatewayUrl);
    assert.equal(report.status, 'completed');
    assertEveryCasePassed(report);
  });

  it('a run the gateway crashed under is reported interrupted after the restart', async () => {
    const started = await client.post('/test/scheme/run', {
      testSuite: 'scheme139-25',
      generateReport: true,
    });
    assert.equal(started.status, 202, started.text);
    const testRunId: string = started.body.testRunId;
    const recordedBeforeCrash = await eventually(
      async () => {
        const answer = await client.get(`/test/scheme/report/${testRunId}`);
        return answer.body.cases.length > 0 ? answer.body.cases.length : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 20, what: 'a first recorded case' },
    );
    const gateway = processes.find((process) => process.name === 'gateway');
    await gateway?.kill();
    processes.splice(processes.indexOf(gateway as ServiceProcess), 1);
    // Back under another VOP_INSTANCE_ID (none is set here): the run reads interrupted once it has
    // been silent for 30 s (STALE_RUN_MS), not before.
    startGateway();
    await gatewayReady();
    const report = await reportWhenEnded(client, testRunId);
    assert.equal(report.status, 'interrupted');
    assert.match(report.interruption, /stopped during the run/);
    assert.ok(report.cases.length >= recordedBeforeCrash);
    assert.ok(report.cases.length < 131, 'the crash came before the last case');
    for (const recorded of report.cases) assert.equal(recorded.outcome, 'passed', recorded.id);
  });
});
