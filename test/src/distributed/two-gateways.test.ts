import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createPostgresClient, type SqlClient } from '@vop/event-store';
import { PRINCIPAL_HEADER, PRINCIPAL_SIGNATURE_HEADER, principalHeaders } from '@vop/http';
import { loadReferenceData } from '@vop/conformance';
import { ensureDevPki } from '@vop/pki';
import {
  createTestDatabase,
  eventually,
  freePort,
  germanIban,
  httpsClient,
  requireEnv,
  startServiceProcess,
  type HttpsClient,
  type ServiceProcess,
  type TestDatabase,
  createTestNamespace,
  type TestNamespace,
} from '@vop/testing';
import { schemeRequest } from '../embedded/fixtures.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const gatewayMain = path.join(repoRoot, 'services/gateway/dist/main.js');
const matchingMain = path.join(repoRoot, 'services/matching/dist/main.js');

const ACCOUNTS = 100;
const INTERNAL_SECRET = randomUUID() + randomUUID();
const REQUESTS = 200;

type Expected =
  | { kind: 'scheme'; outcome: 'MTCH' | 'NMTC' | 'NOAP' }
  | { kind: 'request-result'; code: 'MATCH' | 'NO_MATCH' };

describe('distributed run: two gateways, two matching instances, real Kafka and PostgreSQL', () => {
  const processes: ServiceProcess[] = [];
  const clients: HttpsClient[] = [];
  /** Account records are the bank's own data: written with the admin certificate (docs/architecture.md). */
  const adminClients: HttpsClient[] = [];
  const databases: TestDatabase[] = [];
  let gatewayDb: SqlClient;
  let matchingDb: SqlClient;
  let dataDir: string;
  const matchingUrls: string[] = [];

  let namespace: TestNamespace;

  before(async () => {
    const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS');
    namespace = createTestNamespace('e2e', brokers);
    const gatewayDatabase = await createTestDatabase('e2e_gateway');
    const matchingDatabase = await createTestDatabase('e2e_matching');
    databases.push(gatewayDatabase, matchingDatabase);
    gatewayDb = createPostgresClient({ connectionString: gatewayDatabase.url, max: 2 });
    matchingDb = createPostgresClient({ connectionString: matchingDatabase.url, max: 2 });
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-e2e-'));
    const pki = await ensureDevPki(dataDir);
    const common = {
      KAFKA_BROKERS: brokers,
      VOP_KAFKA_NAMESPACE: namespace.name,
      VOP_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      VOP_INTERNAL_SECRET: INTERNAL_SECRET,
    };
    for (const id of ['m1', 'm2']) {
      const port = await freePort();
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
    const tls = {
      caPem: await readFile(pki.caPath, 'utf8'),
      certPem: await readFile(pki.clientCertPath, 'utf8'),
      keyPem: await readFile(pki.clientKeyPath, 'utf8'),
    };
    const adminTls = {
      ...tls,
      certPem: await readFile(pki.adminCertPath, 'utf8'),
      keyPem: await readFile(pki.adminKeyPath, 'utf8'),
    };
    for (const url of matchingUrls) {
      await eventually(
        async () =>
          (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined,
        { timeoutMs: 60_000, intervalMs: 200, what: `matching ${url} ready` },
      );
    }
    for (const id of ['g1', 'g2']) {
      const port = await freePort();
      const serviceUrls = JSON.stringify({ matching: matchingUrls[0] });
      const gatewayEnv = {
        ...common,
        DATABASE_URL: gatewayDatabase.url,
        VOP_INSTANCE_ID: id,
        VOP_PORT: String(port),
        VOP_SERVICE_URLS: serviceUrls,
        // This test is about correctness across instances (every answer right, each once in every read
        // model), not latency: on a loaded CI machine a rebalance of the two matching instances can take
        // longer than the production deadline, and a 504 would say nothing about what is asserted here.
        VOP_VERIFY_DEADLINE_MS: '20000',
      };
      processes.push(startServiceProcess(`gateway-${id}`, gatewayMain, gatewayEnv));
      const client = httpsClient({ baseUrl: `https://127.0.0.1:${port}`, ...tls });
      clients.push(client);
      adminClients.push(httpsClient({ baseUrl: `https://127.0.0.1:${port}`, ...adminTls }));
      await eventually(
        async () => {
          for (const process of processes)
            if (process.child.exitCode !== null)
              throw new Error(`${process.name} exited:\n${process.output()}`);
          return (await client.get('/readyz').catch(() => undefined))?.status === 200
            ? true
            : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200, what: `gateway ${id} ready` },
      );
    }
  });

  after(async () => {
    for (const client of [...clients, ...adminClients]) client.close();
    await Promise.all(processes.map((process) => process.stop()));
    await gatewayDb?.close();
    await matchingDb?.close();
    for (const database of databases) await database.drop();
    await namespace?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers 200 mixed requests across both gateways correctly, each once in every read model', async () => {
    const gateway = (index: number): HttpsClient => clients[index % 2] as HttpsClient;
    const holders = Array.from({ length: ACCOUNTS }, (_, index) => ({
      iban: germanIban(700_000 + index),
      name: `Holder Number ${index} Åström`,
    }));
    for (const [index, holder] of holders.entries()) {
      const response = await (adminClients[index % 2] as HttpsClient).post('/accounts', holder);
      assert.equal(response.status, 201, response.text);
    }
    await eventually(
      async () => {
        const { rows } = await gatewayDb.query<{ count: string }>(
          `SELECT count(*)::text AS count FROM gateway_decisions.accounts WHERE status = 'active'`,
        );
        return Number(rows[0]?.count) === ACCOUNTS ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: "accounts in the gateways' copy" },
    );

    const plan = Array.from({ length: REQUESTS }, (_, index) => {
      const holder = holders[index % ACCOUNTS] as (typeof holders)[number];
      switch (index % 5) {
        case 0:
          return {
            body: schemeRequest(holder.name.toUpperCase(), holder.iban),
            expected: { kind: 'scheme', outcome: 'MTCH' } as Expected,
            holder,
          };
        case 1:
          return {
            body: schemeRequest('Someone Else Entirely', holder.iban),
            expected: { kind: 'scheme', outcome: 'NMTC' } as Expected,
            holder,
          };
        case 2:
          return {
            body: schemeRequest(holder.name, germanIban(900_000 + index)),
            expected: { kind: 'scheme', outcome: 'NOAP' } as Expected,
            holder,
          };
        case 3:
          return {
            body: { name: holder.name, iban: holder.iban },
            expected: { kind: 'request-result', code: 'MATCH' } as Expected,
            holder,
          };
        default:
          return {
            body: { name: 'Wrong Person', iban: holder.iban },
            expected: { kind: 'request-result', code: 'NO_MATCH' } as Expected,
            holder,
          };
      }
    });

    const failures: string[] = [];
    const requestIds: string[] = [];
    let next = 0;
    async function worker(): Promise<void> {
      while (next < plan.length) {
        const index = next++;
        const { body, expected, holder } = plan[index] as (typeof plan)[number];
        const client = gateway(index);
        if (expected.kind === 'scheme') {
          const response = await client.post('/vop/verify', body);
          const want =
            expected.outcome === 'MTCH'
              ? { partyNameMatch: 'MTCH', matchedName: holder.name }
              : { partyNameMatch: expected.outcome };
          if (response.status !== 200 || JSON.stringify(response.body) !== JSON.stringify(want))
            failures.push(`#${index}: ${response.status} ${response.text}`);
        } else {
          const receipt = await client.post('/verify', body);
          if (receipt.status !== 201) {
            failures.push(`#${index}: ${receipt.status} ${receipt.text}`);
            continue;
          }
          requestIds.push(receipt.body.request_id);
          // Read it back through the other gateway: the result read model is shared.
          const result = await eventually(
            async () => {
              const response = await gateway(index + 1).get(`/verify/${receipt.body.request_id}`);
              return response.status === 200 ? response : undefined;
            },
            { timeoutMs: 20_000, what: `result of #${index}` },
          );
          if (result.body.name_match_code !== expected.code)
            failures.push(`#${index}: ${result.text}`);
        }
      }
    }
    await Promise.all(Array.from({ length: 16 }, worker));
    assert.deepEqual(failures, []);

    const gatewayCounts = await gatewayDb.query<{ total: string; completed: string }>(
      `SELECT count(*)::text AS total, count(*) FILTER (WHERE status = 'COMPLETED')::text AS completed FROM gateway.verifications`,
    );
    assert.deepEqual(gatewayCounts.rows[0], {
      total: String(REQUESTS + 0),
      completed: String(REQUESTS),
    });
    const requested = await gatewayDb.query<{ count: string }>(
      `SELECT count(*)::text AS count FROM gateway.messages WHERE type = 'VerificationRequested'`,
    );
    assert.equal(requested.rows[0]?.count, String(REQUESTS));

    // Each request was decided by the gateway that recorded it: its end follows it in its stream.
    const decided = await gatewayDb.query<{
      count: string;
      distinct: string;
      afterRequest: string;
    }>(
      `SELECT count(*)::text AS count, count(DISTINCT stream_id)::text AS distinct,
              count(*) FILTER (WHERE stream_position = 2)::text AS "afterRequest"
         FROM gateway.messages WHERE type = 'VerificationCompleted'`,
    );
    assert.deepEqual(decided.rows[0], {
      count: String(REQUESTS),
      distinct: String(REQUESTS),
      afterRequest: String(REQUESTS),
    });
    // The results read model keeps no processed ids (a row takes only its first end): each row holds
    // exactly the one completion recorded for it.
    const completedAt = async (query: string) =>
      new Map(
        (await gatewayDb.query<{ id: string; at: string }>(query)).rows.map((row) => [
          row.id,
          row.at,
        ]),
      );
    assert.deepEqual(
      await completedAt(
        `SELECT id::text AS id, to_char(completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at FROM gateway.verifications`,
      ),
      await completedAt(
        `SELECT data->>'verificationId' AS id, data->>'completedAt' AS at FROM gateway.messages WHERE type = 'VerificationCompleted'`,
      ),
    );
    // Matching received every request and decided none of them again.
    const decidedByMatching = await matchingDb.query<{ count: string }>(
      `SELECT count(*)::text AS count FROM matching.messages WHERE type = 'VerificationCompleted'`,
    );
    assert.equal(decidedByMatching.rows[0]?.count, '0');
    // Each copy holds every account once, at the revision of its one event (the copies keep no
    // processed ids: a row's revision is what makes a redelivery change nothing).
    const copyCounts = `SELECT count(*)::text AS count, count(*) FILTER (WHERE revision = 1)::text AS first
                          FROM %s.accounts`;
    const copied = await gatewayDb.query<{ count: string; first: string }>(
      copyCounts.replace('%s', 'gateway_decisions'),
    );
    assert.deepEqual(copied.rows[0], { count: String(ACCOUNTS), first: String(ACCOUNTS) });
    const projected = await matchingDb.query<{ count: string; first: string }>(
      copyCounts.replace('%s', 'matching'),
    );
    assert.deepEqual(projected.rows[0], { count: String(ACCOUNTS), first: String(ACCOUNTS) });
    assert.equal(requestIds.length, (REQUESTS * 2) / 5);
  });

  it("subscribes each gateway's waiters group while the two share the results group", async () => {
    // Each holds only some partitions of the completions topic: the ends the other applies reach a
    // caller here through this instance's own group (one gateway alone has none: observability.test.ts).
    for (const [index, id] of ['g1', 'g2'].entries()) {
      await eventually(
        async () => {
          const text = (await (clients[index] as HttpsClient).get('/metrics')).text;
          return new RegExp(`^consumer_lag\\{[^}]*group="[^"]*gateway-waiters-${id}"`, 'm').test(
            text,
          )
            ? true
            : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200, what: `gateway ${id}'s waiters group` },
      );
    }
  });

  it('forwards a family the matching service owns to its internal listener, which trusts only the principal the edge signed', async () => {
    const explain = { name: 'Jurgen Gross', holderNames: ['Jürgen Groß'] };
    for (const admin of adminClients) {
      const response = await admin.post('/v1/admin/matching/explain', explain);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.outcome, 'MTCH');
    }
    const asParticipant = await (clients[0] as HttpsClient).post(
      '/admin/matching/explain',
      explain,
    );
    assert.equal(asParticipant.status, 403);
    assert.equal(asParticipant.body.error, 'ACCESS_DENIED');
    // An outside caller's own principal headers are replaced by the edge's, so they claim nothing.
    const forgedAtEdge = await (clients[1] as HttpsClient).post(
      '/admin/matching/explain',
      explain,
      {
        headers: { [PRINCIPAL_HEADER]: 'e30', [PRINCIPAL_SIGNATURE_HEADER]: 'AAAA' },
      },
    );
    assert.equal(forgedAtEdge.status, 403);

    const metrics = await (clients[0] as HttpsClient).get('/metrics');
    assert.match(metrics.text, /route="forwarded:matching-management"/);

    const internal = `${matchingUrls[0]}/admin/matching/explain`;
    const post = (headers: Record<string, string>) =>
      fetch(internal, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(explain),
      });
    const admin = {
      kind: 'certificate',
      participantId: 'ADMIN',
      fingerprint: '00'.repeat(32),
      admin: true,
    } as const;
    const unsigned = await post({});
    assert.equal(unsigned.status, 401);
    assert.equal(((await unsigned.json()) as { error: string }).error, 'UNAUTHORIZED');
    const wrongSecret = await post(
      principalHeaders(admin, 'not-the-deployment-secret-but-long-enough', new Date()),
    );
    assert.equal(wrongSecret.status, 401);
    const signed = await post(principalHeaders(admin, INTERNAL_SECRET, new Date()));
    assert.equal(signed.status, 200, 'the deployment secret is what the listener trusts');

    // The audit entry is written once the answer has gone out, so it may land just after it.
    const auditedWrites = async () => {
      const { rows } = await gatewayDb.query<{ count: string }>(
        `SELECT count(*)::text AS count FROM gateway.audit_log WHERE operation = 'POST /admin/matching/explain'`,
      );
      return Number(rows[0]?.count);
    };
    const expectedWrites = adminClients.length + 2;
    await eventually(async () => ((await auditedWrites()) >= expectedWrites ? true : undefined), {
      what: 'audit entries of the forwarded management writes',
    });
    assert.equal(
      await auditedWrites(),
      expectedWrites,
      'every forwarded management write is audited once at the edge',
    );
  });

  it('loads the reference data from both gateways at once: each answers, and each account is opened once', async () => {
    const { accounts } = await loadReferenceData('1.0.0');
    const ibans = accounts.map((account) => account.iban);
    const [first, second] = clients as [HttpsClient, HttpsClient];
    // A few rounds: each load checks an IBAN and then opens it, so two loads started together race
    // on the same accounts (one process runs its own loads one at a time; two gateways did not).
    for (let round = 0; round < 3; round++) {
      const reset = await first.post('/test/environment/reset', {
        resetDatabase: true,
        reloadTestData: false,
      });
      assert.equal(reset.status, 200, reset.text);
      const loads = await Promise.all(
        [first, second].map((client) =>
          client.post('/test/data/load', { dataSet: 'scheme_reference_data', version: '1.0.0' }),
        ),
      );
      for (const load of loads) {
        assert.equal(load.status, 200, load.text);
        assert.equal(load.body.loaded + load.body.alreadyPresent, accounts.length);
      }
      assert.equal(
        loads.reduce((sum, load) => sum + (load.body.loaded as number), 0),
        accounts.length,
      );
      const live = await gatewayDb.query<{ count: string }>(
        'SELECT count(*)::text AS count FROM gateway.accounts WHERE deleted_at IS NULL AND iban = ANY($1)',
        [ibans],
      );
      assert.equal(live.rows[0]?.count, String(accounts.length));
    }
  });
});
