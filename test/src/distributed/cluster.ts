import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDevPki, type DevPki } from '@vop/pki';
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

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const main = (service: string) => path.join(repoRoot, `services/${service}/dist/main.js`);

/** The services behind the gateway, each with its internal listener and database. */
export const INTERNAL_SERVICES = ['matching', 'batch', 'webhook-dispatcher', 'analytics'] as const;

/** The distributed run of docs/operations.md: one gateway forwarding to every other service, on real Kafka and PostgreSQL. */
export interface Cluster {
  namespace: TestNamespace;
  dataDir: string;
  pki: DevPki;
  caPem: string;
  gatewayPort: number;
  /** https://127.0.0.1:<gatewayPort> */
  baseUrl: string;
  /** The gateway's database (its keystore too). */
  gatewayDatabase: TestDatabase;
  /** Each internal service's listener, http://127.0.0.1:<port>. */
  internalUrls: Map<string, string>;
  processes: ServiceProcess[];
  /** Presents the participant certificate. */
  client: HttpsClient;
  /** Presents the admin certificate. */
  admin: HttpsClient;
  stop(): Promise<void>;
}

/**
 * Starts the gateway and every internal service as processes of their own, each with a database of
 * its own, under a Kafka namespace of the run's own; resolves when every one answers /readyz.
 */
export async function startCluster(options: {
  /** Names the namespace, the databases and the data folder. */
  prefix: string;
  /** Added to every process's environment. */
  env?: Record<string, string>;
  /** Each process as it starts (to keep its output, say). */
  onProcess?: (service: ServiceProcess) => void;
  /** A data folder of the caller's (kept on stop), e.g. holding a development PKI of another CA. */
  dataDir?: string;
  /** Where the gateway listens (default: a free port). */
  gatewayPort?: number;
}): Promise<Cluster> {
  const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS');
  const namespace = createTestNamespace(options.prefix, brokers);
  const databases: TestDatabase[] = [];
  const processes: ServiceProcess[] = [];
  const gatewayDatabase = await createTestDatabase(`${options.prefix}_gateway`);
  databases.push(gatewayDatabase);
  const dataDir =
    options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), `vop-${options.prefix}-`)));
  const pki = await ensureDevPki(dataDir);
  const common = {
    KAFKA_BROKERS: brokers,
    VOP_KAFKA_NAMESPACE: namespace.name,
    VOP_DATA_DIR: dataDir,
    VOP_INTERNAL_SECRET: randomUUID() + randomUUID(),
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  const start = (service: string, env: Record<string, string>): void => {
    const started = startServiceProcess(service, main(service), { ...common, ...env });
    options.onProcess?.(started);
    processes.push(started);
  };
  const internalUrls = new Map<string, string>();
  for (const service of INTERNAL_SERVICES) {
    const database = await createTestDatabase(`${options.prefix}_${service.replace('-', '_')}`);
    databases.push(database);
    const port = await freePort();
    internalUrls.set(service, `http://127.0.0.1:${port}`);
    start(service, {
      DATABASE_URL: database.url,
      VOP_KEYSTORE_DATABASE_URL: gatewayDatabase.url,
      VOP_PORT: String(port),
    });
  }
  const gatewayPort = options.gatewayPort ?? (await freePort());
  start('gateway', {
    DATABASE_URL: gatewayDatabase.url,
    VOP_PORT: String(gatewayPort),
    VOP_SERVICE_URLS: JSON.stringify(Object.fromEntries(internalUrls)),
  });
  const caPem = await readFile(pki.caPath, 'utf8');
  const baseUrl = `https://127.0.0.1:${gatewayPort}`;
  const tlsOf = async (certPath: string, keyPath: string) => ({
    baseUrl,
    caPem,
    certPem: await readFile(certPath, 'utf8'),
    keyPem: await readFile(keyPath, 'utf8'),
  });
  const client = httpsClient(await tlsOf(pki.clientCertPath, pki.clientKeyPath));
  const admin = httpsClient(await tlsOf(pki.adminCertPath, pki.adminKeyPath));
  const stop = async (): Promise<void> => {
    client.close();
    admin.close();
    await Promise.all(processes.map((service) => service.stop()));
    for (const database of databases) await database.drop();
    await namespace.drop();
    if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        for (const service of processes)
          if (service.child.exitCode !== null)
            throw new Error(`${service.name} exited:\n${service.output()}`);
        if ((await client.get('/readyz').catch(() => undefined))?.status !== 200) return undefined;
        for (const url of internalUrls.values())
          if ((await fetch(`${url}/readyz`).catch(() => undefined))?.status !== 200)
            return undefined;
        return true;
      },
      { timeoutMs: 120_000, intervalMs: 250, what: 'every service ready' },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    namespace,
    dataDir,
    pki,
    caPem,
    gatewayPort,
    baseUrl,
    gatewayDatabase,
    internalUrls,
    processes,
    client,
    admin,
    stop,
  };
}
