import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ensureDevPki } from '@vop/pki';
import {
  createTestDatabase,
  createTestNamespace,
  eventually,
  freePort,
  httpsClient,
  requireEnv,
  startServiceProcess,
  type HttpsClient,
  type ServiceProcess,
  type TestDatabase,
  type TestNamespace,
} from '@vop/testing';
import { runEmbedded } from '../embedded/fixtures.js';
import {
  agentFor,
  probeSpellings,
  routesAtRoot,
  sendRaw,
  type Caller,
  type ProbedRoute,
  type ProbeTarget,
} from '../security/path-spellings.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const main = (service: string) => path.join(repoRoot, `services/${service}/dist/main.js`);
const INTERNAL_SERVICES = ['matching', 'batch', 'webhook-dispatcher', 'analytics'] as const;

/**
 * Issue 39 through the distributed gateway's forwarding: the families matching, batch, webhooks and
 * analytics own travel to their internal listeners, which judge the path again. The same probe as
 * test/src/security/path-spellings.test.ts, on real Kafka and PostgreSQL.
 */
describe('no spelling of a path reaches a handler under another family (distributed, forwarded)', () => {
  const processes: ServiceProcess[] = [];
  const databases: TestDatabase[] = [];
  let namespace: TestNamespace;
  let dataDir: string;
  let admin: HttpsClient;
  let target: ProbeTarget;
  let callers: Caller[];
  let routes: ProbedRoute[];
  const internalUrls = new Map<string, string>();

  before(async () => {
    // The routes every service mounts, all composed in one app: the embedded default's.
    const embedded = await runEmbedded();
    routes = routesAtRoot(embedded.service.routes);
    await embedded.stop();

    const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS');
    namespace = createTestNamespace('spell', brokers);
    const gatewayDatabase = await createTestDatabase('spell_gateway');
    databases.push(gatewayDatabase);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-spell-'));
    const pki = await ensureDevPki(dataDir);
    const common = {
      KAFKA_BROKERS: brokers,
      VOP_KAFKA_NAMESPACE: namespace.name,
      VOP_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      VOP_INTERNAL_SECRET: randomUUID() + randomUUID(),
    };
    for (const service of INTERNAL_SERVICES) {
      const database = await createTestDatabase(`spell_${service.replace('-', '_')}`);
      databases.push(database);
      const port = await freePort();
      internalUrls.set(service, `http://127.0.0.1:${port}`);
      processes.push(
        startServiceProcess(service, main(service), {
          ...common,
          DATABASE_URL: database.url,
          VOP_KEYSTORE_DATABASE_URL: gatewayDatabase.url,
          VOP_PORT: String(port),
        }),
      );
    }
    const gatewayPort = await freePort();
    processes.push(
      startServiceProcess('gateway', main('gateway'), {
        ...common,
        DATABASE_URL: gatewayDatabase.url,
        VOP_PORT: String(gatewayPort),
        VOP_SERVICE_URLS: JSON.stringify(Object.fromEntries(internalUrls)),
      }),
    );
    const caPem = await readFile(pki.caPath, 'utf8');
    const baseUrl = `https://127.0.0.1:${gatewayPort}`;
    target = { baseUrl, caPem };
    admin = httpsClient({
      baseUrl,
      caPem,
      certPem: await readFile(pki.adminCertPath, 'utf8'),
      keyPem: await readFile(pki.adminKeyPath, 'utf8'),
    });
    await eventually(
      async () => {
        for (const service of processes)
          if (service.child.exitCode !== null)
            throw new Error(`${service.name} exited:\n${service.output()}`);
        if ((await admin.get('/readyz').catch(() => undefined))?.status !== 200) return undefined;
        for (const url of internalUrls.values())
          if ((await fetch(`${url}/readyz`).catch(() => undefined))?.status !== 200)
            return undefined;
        return true;
      },
      { timeoutMs: 120_000, intervalMs: 250, what: 'every service ready' },
    );
    const keyWith = async (scope: string): Promise<Caller> => {
      const issued = await admin.post('/admin/api-keys', {
        participantId: 'PSDDE-BAFIN-123456',
        scopes: [scope],
      });
      assert.equal(issued.status, 201, issued.text);
      return {
        name: `an API key with the ${scope} scope`,
        headers: { authorization: `Bearer ${issued.body.secret as string}` },
      };
    };
    callers = [
      {
        name: 'a participant certificate',
        cert: {
          certPem: await readFile(pki.clientCertPath, 'utf8'),
          keyPem: await readFile(pki.clientKeyPath, 'utf8'),
        },
      },
      { name: 'no credential' },
      await keyWith('verify'),
      await keyWith('accounts'),
      await keyWith('analytics'),
    ];
  });

  after(async () => {
    admin?.close();
    await Promise.all(processes.map((service) => service.stop()));
    await namespace?.drop();
    for (const database of databases) await database.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('reaches no handler by any other spelling, and refuses each base form as the path itself', async () => {
    const forwarded = routes.filter(({ path }) =>
      /^\/(?:admin\/matching|admin\/stats|admin\/verifications|analytics|account|api\/v1\/batch|verify\/batch|webhooks)/.test(
        path,
      ),
    );
    assert.ok(forwarded.length >= 12, `forwarded routes probed: ${forwarded.length}`);
    const summary = await probeSpellings(target, callers, routes);
    assert.ok(summary.refusedAsNotTheRoute > 1000, JSON.stringify(summary));
  });

  it("answers the issue's own attacks on forwarded families 404 at the edge, and the internal listeners refuse them too", async () => {
    const participant = callers[0] as Caller;
    const agent = agentFor(target, participant);
    try {
      for (const [method, spelt] of [
        ['POST', '/ADMIN/matching/explain'],
        ['GET', '/ADMIN/stats'],
        ['GET', '/Analytics/usage'],
        ['GET', '/V1/WEBHOOKS'],
        ['GET', '/api/v1/batch/probe1/'],
      ] as const) {
        const answer = await sendRaw(target, participant, method, spelt, agent);
        assert.equal(answer.status, 404, `${method} ${spelt}`);
        assert.deepEqual(answer.body, { error: 'NOT_FOUND', message: 'No such endpoint' });
      }
    } finally {
      agent.destroy();
    }
    // Straight at an internal listener (a caller inside the deployment network): no signed
    // principal, so nothing but the probes; a spelling no row covers is 404 there as well.
    const matching = internalUrls.get('matching') as string;
    const unsigned = await fetch(`${matching}/admin/matching/explain`, { method: 'POST' });
    assert.equal(unsigned.status, 401);
    const spelt = await fetch(`${matching}/ADMIN/matching/explain`, { method: 'POST' });
    assert.equal(spelt.status, 404);
  });
});
