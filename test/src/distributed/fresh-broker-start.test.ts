import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { ensureDevPki } from '@vop/pki';
import {
  createTestDatabase,
  eventually,
  freePort,
  germanIban,
  httpsClient,
  startServiceProcess,
  type HttpsClient,
  type ServiceProcess,
  type TestDatabase,
} from '@vop/testing';
import { schemeRequest } from '../embedded/fixtures.js';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const kafkaScript = path.join(repoRoot, 'infra/local/kafka.sh');
const gatewayMain = path.join(repoRoot, 'services/gateway/dist/main.js');
const matchingMain = path.join(repoRoot, 'services/matching/dist/main.js');

/**
 * The distributed commands of docs/operations.md on a broker that has never seen a topic or a consumer group: every
 * process starts at the same moment, so topics are created while others already ask for their leaders
 * and the offsets topic does not exist yet. Retriable broker errors must not kill anyone (issue 14).
 */
describe('distributed start on a fresh broker, all services at once', () => {
  const processes: ServiceProcess[] = [];
  const participants: HttpsClient[] = [];
  const admins: HttpsClient[] = [];
  const databases: TestDatabase[] = [];
  let kafkaEnv: Record<string, string> = {};
  let dataDir = '';
  let infraDir = '';
  const matchingUrls: string[] = [];

  before(async () => {
    // A short path: Kafka's and PostgreSQL's socket and log paths stay well inside their limits.
    infraDir = await mkdtemp(path.join(os.tmpdir(), 'vop-fk-'));
    kafkaEnv = {
      VOP_INFRA_DIR: infraDir,
      VOP_KAFKA_PORT: String(await freePort()),
      VOP_KAFKA_CONTROLLER_PORT: String(await freePort()),
      VOP_KAFKA_HEAP: '512m',
    };
    await run('bash', [kafkaScript, 'start'], { env: { ...process.env, ...kafkaEnv } });
    const brokers = `127.0.0.1:${kafkaEnv.VOP_KAFKA_PORT}`;
    const gatewayDatabase = await createTestDatabase('fresh_gateway');
    const matchingDatabase = await createTestDatabase('fresh_matching');
    databases.push(gatewayDatabase, matchingDatabase);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-fresh-'));
    const pki = await ensureDevPki(dataDir);
    const common = {
      KAFKA_BROKERS: brokers,
      VOP_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      VOP_INTERNAL_SECRET: randomUUID() + randomUUID(),
    };
    const ports = { m1: await freePort(), m2: await freePort() };
    for (const [id, port] of Object.entries(ports)) {
      matchingUrls.push(`http://127.0.0.1:${port}`);
      processes.push(
        startServiceProcess(`matching-${id}`, matchingMain, {
          ...common,
          DATABASE_URL: matchingDatabase.url,
          VOP_KEYSTORE_DATABASE_URL: gatewayDatabase.url,
          VOP_INSTANCE_ID: id,
          VOP_PORT: String(port),
        }),
      );
    }
    const read = (file: string) => readFile(file, 'utf8');
    const caPem = await read(pki.caPath);
    for (const id of ['g1', 'g2']) {
      const port = await freePort();
      processes.push(
        startServiceProcess(`gateway-${id}`, gatewayMain, {
          ...common,
          DATABASE_URL: gatewayDatabase.url,
          VOP_INSTANCE_ID: id,
          VOP_PORT: String(port),
          VOP_SERVICE_URLS: JSON.stringify({ matching: matchingUrls[0] }),
        }),
      );
      const baseUrl = `https://127.0.0.1:${port}`;
      participants.push(
        httpsClient({
          baseUrl,
          caPem,
          certPem: await read(pki.clientCertPath),
          keyPem: await read(pki.clientKeyPath),
        }),
      );
      admins.push(
        httpsClient({
          baseUrl,
          caPem,
          certPem: await read(pki.adminCertPath),
          keyPem: await read(pki.adminKeyPath),
        }),
      );
    }
  });

  after(async () => {
    for (const client of [...participants, ...admins]) client.close();
    await Promise.all(processes.map((process) => process.stop()));
    for (const database of databases) await database.drop();
    await run('bash', [kafkaScript, 'stop'], { env: { ...process.env, ...kafkaEnv } }).catch(
      () => undefined,
    );
    if (infraDir) await rm(infraDir, { recursive: true, force: true });
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('brings every process to ready without one dying, and each gateway then answers', async () => {
    const alive = () => {
      for (const process of processes)
        if (process.child.exitCode !== null || process.child.signalCode !== null)
          throw new Error(`${process.name} died at start:\n${process.output()}`);
    };
    const readyz = async (probe: () => Promise<number | undefined>) =>
      eventually(
        async () => {
          alive();
          return (await probe().catch(() => undefined)) === 200 ? true : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 250, what: 'ready' },
      );
    await Promise.all([
      ...matchingUrls.map((url) => readyz(async () => (await fetch(`${url}/readyz`)).status)),
      ...participants.map((client) => readyz(async () => (await client.get('/readyz')).status)),
    ]);

    for (const [index, participant] of participants.entries()) {
      const iban = germanIban(810_000 + index);
      const admin = admins[index] as HttpsClient;
      assert.equal((await admin.post('/accounts', { iban, name: 'Fresh Start' })).status, 201);
      const answer = await eventually(async () => {
        const response = await participant.post('/vop/verify', schemeRequest('Fresh Start', iban));
        // The account may still be on its way to matching; NOAP until it arrives.
        return response.status === 200 && response.body.partyNameMatch === 'MTCH'
          ? response
          : undefined;
      });
      assert.equal(answer.body.partyNameMatch, 'MTCH');
    }
    alive();
  });
});
