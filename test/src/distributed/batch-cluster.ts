import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { passesModulusCheck } from '@vop/contracts';
import { createPostgresClient, type SqlClient } from '@vop/event-store';
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
} from '@vop/testing';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const mains = {
  gateway: path.join(repoRoot, 'services/gateway/dist/main.js'),
  matching: path.join(repoRoot, 'services/matching/dist/main.js'),
  batch: path.join(repoRoot, 'services/batch/dist/main.js'),
};

export interface BatchCluster {
  client: HttpsClient;
  admin: HttpsClient;
  namespace: string;
  brokers: string;
  batchDb: SqlClient;
  matchingDb: SqlClient;
  /** The batch service's DATABASE_URL (for its commands, e.g. the rebuild). */
  batchDatabaseUrl: string;
  /** Every process, by name (gateway, matching-1, matching-2, batch). */
  processes: Map<string, ServiceProcess>;
  /** Starts (or starts again, after a kill) the named process with its own environment. */
  start(name: string): ServiceProcess;
  /** What every process printed, for failure messages. */
  outputs(): string;
  holders: { iban: string; name: string }[];
  /** Holders whose records carry a UK domestic account (sort code 08-99-99), for form 1 batches. */
  domesticHolders: DomesticHolder[];
  stop(): Promise<void>;
}

export interface DomesticHolder {
  iban: string;
  name: string;
  sortCode: string;
  accountNumber: string;
}

const DOMESTIC_SORT_CODE = '089999';

/** Holders with account numbers that pass the modulus check under DOMESTIC_SORT_CODE. */
function domesticHolders(count: number): DomesticHolder[] {
  const holders: DomesticHolder[] = [];
  for (let candidate = 72_200_000; holders.length < count; candidate++) {
    const accountNumber = String(candidate).padStart(8, '0');
    if (!passesModulusCheck(DOMESTIC_SORT_CODE, accountNumber)) continue;
    const index = holders.length;
    const iban = germanIban(950_000 + index);
    const name = `Domestic Holder ${index} Brontë`;
    holders.push({ iban, name, sortCode: DOMESTIC_SORT_CODE, accountNumber });
  }
  return holders;
}

/**
 * The distributed run with real Kafka and PostgreSQL: one gateway (the public edge, forwarding the
 * batch families to the batch service's internal listener), `matchingInstances` matching processes
 * and one batch process; `accounts` account records written and projected, and `domesticAccounts`
 * more with a UK domestic account (projected by matching and by the batch service).
 */
export async function startBatchCluster(options: {
  matchingInstances: number;
  /** VOP_MATCHING_ROLES of each matching instance in turn (default: both roles in every one). */
  matchingRoles?: string[];
  accounts: number;
  domesticAccounts?: number;
  /** VOP_BATCH_ENTRIES_DECIDED_BY of the batch service (default: the service's own, `batch`). */
  batchEntriesDecidedBy?: 'batch' | 'matching';
}): Promise<BatchCluster> {
  const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS');
  const databases: TestDatabase[] = [];
  const gatewayDatabase = await createTestDatabase('e2e_batch_gateway');
  const matchingDatabase = await createTestDatabase('e2e_batch_matching');
  const batchDatabase = await createTestDatabase('e2e_batch_batch');
  databases.push(gatewayDatabase, matchingDatabase, batchDatabase);
  const batchDb = createPostgresClient({ connectionString: batchDatabase.url, max: 2 });
  const matchingDb = createPostgresClient({ connectionString: matchingDatabase.url, max: 2 });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-batch-e2e-'));
  const pki = await ensureDevPki(dataDir);
  const namespace = createTestNamespace('e2e', brokers);
  const common = {
    KAFKA_BROKERS: brokers,
    VOP_KAFKA_NAMESPACE: namespace.name,
    VOP_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    VOP_INTERNAL_SECRET: randomUUID() + randomUUID(),
  };
  const batchPort = await freePort();
  const gatewayPort = await freePort();
  const environments = new Map<string, { main: string; env: Record<string, string> }>();
  for (let index = 1; index <= options.matchingInstances; index += 1) {
    environments.set(`matching-${index}`, {
      main: mains.matching,
      env: {
        ...common,
        DATABASE_URL: matchingDatabase.url,
        VOP_KEYSTORE_DATABASE_URL: gatewayDatabase.url,
        VOP_INSTANCE_ID: `m${index}`,
        VOP_PORT: String(await freePort()),
        ...(options.matchingRoles?.[index - 1] !== undefined && {
          VOP_MATCHING_ROLES: options.matchingRoles[index - 1],
        }),
      },
    });
  }
  environments.set('batch', {
    main: mains.batch,
    env: {
      ...common,
      DATABASE_URL: batchDatabase.url,
      VOP_KEYSTORE_DATABASE_URL: gatewayDatabase.url,
      VOP_INSTANCE_ID: 'b1',
      VOP_PORT: String(batchPort),
      ...(options.batchEntriesDecidedBy !== undefined && {
        VOP_BATCH_ENTRIES_DECIDED_BY: options.batchEntriesDecidedBy,
      }),
    },
  });
  environments.set('gateway', {
    main: mains.gateway,
    env: {
      ...common,
      DATABASE_URL: gatewayDatabase.url,
      VOP_INSTANCE_ID: 'g1',
      VOP_PORT: String(gatewayPort),
      VOP_SERVICE_URLS: JSON.stringify({ batch: `http://127.0.0.1:${batchPort}` }),
    },
  });
  const processes = new Map<string, ServiceProcess>();
  const start = (name: string): ServiceProcess => {
    const found = environments.get(name);
    if (!found) throw new Error(`no process ${name}`);
    const started = startServiceProcess(name, found.main, found.env);
    processes.set(name, started);
    return started;
  };
  // The gateway first: it creates the keystore the others read.
  start('gateway');
  const read = (file: string): Promise<string> => readFile(file, 'utf8');
  const caPem = await read(pki.caPath);
  const client = httpsClient({
    baseUrl: `https://127.0.0.1:${gatewayPort}`,
    caPem,
    certPem: await read(pki.clientCertPath),
    keyPem: await read(pki.clientKeyPath),
  });
  const admin = httpsClient({
    baseUrl: `https://127.0.0.1:${gatewayPort}`,
    caPem,
    certPem: await read(pki.adminCertPath),
    keyPem: await read(pki.adminKeyPath),
  });
  const alive = (): void => {
    for (const process of processes.values())
      if (process.child.exitCode !== null)
        throw new Error(`${process.name} exited:\n${process.output()}`);
  };
  await eventually(
    async () => {
      alive();
      return (await client.get('/readyz').catch(() => undefined))?.status === 200
        ? true
        : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: 'gateway ready' },
  );
  for (const name of environments.keys()) if (name !== 'gateway') start(name);
  await eventually(
    async () => {
      alive();
      const status = (await client.get('/api/v1/batch/none').catch(() => undefined))?.status;
      return status === 404 ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: 'batch service reachable through the gateway' },
  );
  const holders = Array.from({ length: options.accounts }, (_, index) => ({
    iban: germanIban(900_000 + index),
    name: `Holder Number ${index} Åström`,
  }));
  for (const holder of holders) {
    const response = await admin.post('/accounts', holder);
    assert.equal(response.status, 201, response.text);
  }
  const domestic = domesticHolders(options.domesticAccounts ?? 0);
  for (const { iban, name, sortCode, accountNumber } of domestic) {
    const domesticAccount = { sortCode, accountNumber };
    const response = await admin.post('/accounts', { iban, name, domesticAccount });
    assert.equal(response.status, 201, response.text);
  }
  await eventually(
    async () => {
      alive();
      const { rows } = await matchingDb.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM matching.accounts WHERE status = 'active'`,
      );
      return rows[0]?.count === options.accounts + domestic.length ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: 'accounts in the matching projection' },
  );
  if (options.batchEntriesDecidedBy !== 'matching')
    await eventually(
      async () => {
        alive();
        const { rows } = await batchDb.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM batch_decisions.accounts WHERE status = 'active'`,
        );
        return rows[0]?.count === options.accounts + domestic.length ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: "accounts in the batch service's copy" },
    );
  // The copy's rows are not enough: the batch service decides entries only once its copy has caught
  // up with the account events by the consumer group's offsets, which its readiness says
  // (packages/verifications/src/deciding/account-projection-consumer.ts). A chunk fanned out before
  // is left to matching: after a broker restart that window outlasted the wait above.
  await eventually(
    async () => {
      alive();
      const ready = await fetch(`http://127.0.0.1:${batchPort}/readyz`).catch(() => undefined);
      return ready?.status === 200 ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: 'batch service ready' },
  );
  await eventually(
    async () => {
      alive();
      const { rows } = await batchDb.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM batch.domestic_accounts
          WHERE NOT deleted AND sort_code IS NOT NULL`,
      );
      return rows[0]?.count === domestic.length ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: 'domestic accounts in the batch projection' },
  ).catch((error: unknown) => {
    const batch = processes.get('batch')?.output().slice(-3000);
    throw new Error(`${String(error)}\n--- batch:\n${batch}`);
  });
  return {
    client,
    admin,
    namespace: namespace.name,
    brokers,
    batchDb,
    matchingDb,
    batchDatabaseUrl: batchDatabase.url,
    processes,
    start,
    outputs: () =>
      [...processes.values()]
        .map(
          (process) =>
            `--- ${process.name} (exit ${process.child.exitCode}):\n${process.output().slice(-3000)}`,
        )
        .join('\n'),
    holders,
    domesticHolders: domestic,
    async stop() {
      client.close();
      admin.close();
      await Promise.all([...processes.values()].map((process) => process.stop()));
      await batchDb.close();
      await matchingDb.close();
      for (const database of databases) await database.drop();
      await namespace.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A form 2 batch over the cluster's holders: every third entry a name mismatch. */
export function batchEntries(
  holders: { iban: string; name: string }[],
  count: number,
): { id: string; iban: string; name: string }[] {
  return Array.from({ length: count }, (_, index) => {
    const holder = holders[index % holders.length] as { iban: string; name: string };
    return {
      id: `entry-${index}`,
      iban: holder.iban,
      name: index % 3 === 2 ? 'Somebody Else Entirely' : holder.name,
    };
  });
}

/** Polls the batch's status until COMPLETED. */
export async function batchCompleted(
  client: HttpsClient,
  batchId: string,
  timeoutMs = 120_000,
): Promise<{ status: string; progress: Record<string, number>; resultsReady: boolean }> {
  return eventually(
    async () => {
      const response = await client.get(`/api/v1/batch/${batchId}`).catch(() => undefined);
      return response?.body?.status === 'COMPLETED' ? response.body : undefined;
    },
    { timeoutMs, intervalMs: 200, what: `batch ${batchId} completed` },
  );
}

/** Every result page; asserts each entry is answered exactly once, with the expected word. */
export async function assertAnsweredOnce(
  client: HttpsClient,
  batchId: string,
  entries: { id: string; name: string }[],
): Promise<void> {
  const results: { id: string; result: string }[] = [];
  for (let cursor: string | undefined = undefined; ;) {
    const query: string = cursor === undefined ? '' : `?cursor=${cursor}`;
    const page = await client.get(`/api/v1/batch/${batchId}/results${query}`);
    assert.equal(page.status, 200, page.text);
    results.push(...page.body.results);
    cursor = page.body.nextCursor;
    if (cursor === undefined) break;
  }
  assert.equal(results.length, entries.length);
  assert.deepEqual(
    results.map((result) => result.id),
    entries.map((entry) => entry.id),
  );
  for (const [index, entry] of entries.entries())
    assert.equal(
      results[index]?.result,
      entry.name === 'Somebody Else Entirely' ? 'NO_MATCH' : 'MATCH',
      entry.id,
    );
}
