import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDevPki } from '@vop/pki';
import {
  createTestDatabase,
  createTestNamespace,
  freePort,
  startServiceProcess,
  type ServiceProcess,
  type TestDatabase,
  type TestNamespace,
} from '@vop/testing';
import { clientTlsFrom, type ClientTls } from './client-tls.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * One gateway and one matching process on the shared PostgreSQL and Kafka; with `wholeDeployment`, every
 * other service.
 */
export interface DistributedPair {
  url: string;
  tls: { client: ClientTls; admin: ClientTls };
  gateway: ServiceProcess;
  /** With `importGateway`: the second gateway and its URL. */
  importGateway?: { process: ServiceProcess; url: string };
  matching: ServiceProcess;
  /** With `wholeDeployment`: batch, analytics and the webhook dispatcher, each on a database of its own. */
  rest: { service: string; process: ServiceProcess; db: TestDatabase }[];
  gatewayDb: TestDatabase;
  matchingDb: TestDatabase;
  namespace: TestNamespace;
}

/**
 * The bench's participant is not budgeted (as in the other benches): its checks are paced at 100 a second,
 * exactly the default budget of 6,000 a minute, and a client catching up after a slow second was refused
 * 429. The services run as a test deployment (`VOP_ENVIRONMENT` by default), so the test budget applies.
 */
export const BENCH_RATE_LIMITS = { VOP_TEST_RATE_LIMITS: '{"default":100000000}' };

/**
 * Starts a gateway and a matching process with databases, topics and a development PKI of their own
 * (`name` prefixes them); `onMade` is told of each thing made, in order, to undo it (last first)
 * however the run ends.
 */
export async function startDistributedPair(options: {
  name: string;
  dataDir: string;
  brokers: string;
  nodeArgs?: string[];
  /** A second gateway on the same database and topics (`importGateway`): for work kept apart from checks. */
  importGateway?: boolean;
  /** Also batch, analytics and the webhook dispatcher: every process that reads the account events. */
  wholeDeployment?: boolean;
  onMade: (undo: () => Promise<unknown>) => void;
}): Promise<DistributedPair> {
  const { name, dataDir, brokers, onMade } = options;
  const pki = await ensureDevPki(dataDir);
  const gatewayDb = await createTestDatabase(`${name}_gateway`);
  onMade(() => gatewayDb.drop());
  const matchingDb = await createTestDatabase(`${name}_matching`);
  onMade(() => matchingDb.drop());
  const namespace = createTestNamespace(name.replaceAll('_', '-'), brokers);
  onMade(() => namespace.drop());
  const common = {
    KAFKA_BROKERS: brokers,
    VOP_KAFKA_NAMESPACE: namespace.name,
    VOP_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    DATABASE_POOL_MAX: '20',
    VOP_INTERNAL_SECRET: 'i'.repeat(32),
    ...BENCH_RATE_LIMITS,
  };
  const start = (service: string, env: Record<string, string>, label = service) =>
    startServiceProcess(
      `${name} ${label}`,
      path.join(repoRoot, `services/${service}/dist/main.js`),
      { ...common, ...env },
      [],
      options.nodeArgs ?? [],
    );
  const matching = start('matching', {
    DATABASE_URL: matchingDb.url,
    VOP_KEYSTORE_DATABASE_URL: gatewayDb.url,
    VOP_PORT: String(await freePort()),
  });
  onMade(() => matching.stop(30_000));
  const gatewayPort = await freePort();
  const gateway = start('gateway', { DATABASE_URL: gatewayDb.url, VOP_PORT: String(gatewayPort) });
  onMade(() => gateway.stop(30_000));
  let importGateway: { process: ServiceProcess; url: string } | undefined;
  if (options.importGateway === true) {
    const port = await freePort();
    const env = { DATABASE_URL: gatewayDb.url, VOP_PORT: String(port) };
    const second = start('gateway', env, 'import-gateway');
    onMade(() => second.stop(30_000));
    importGateway = { process: second, url: `https://127.0.0.1:${port}` };
  }
  const rest: DistributedPair['rest'] = [];
  for (const service of options.wholeDeployment === true
    ? ['batch', 'analytics', 'webhook-dispatcher']
    : []) {
    const db = await createTestDatabase(`${name}_${service.replace('-', '_')}`);
    onMade(() => db.drop());
    const started = start(service, {
      DATABASE_URL: db.url,
      VOP_KEYSTORE_DATABASE_URL: gatewayDb.url,
      VOP_PORT: String(await freePort()),
    });
    onMade(() => started.stop(30_000));
    rest.push({ service, process: started, db });
  }
  return {
    url: `https://127.0.0.1:${gatewayPort}`,
    rest,
    ...(importGateway && { importGateway }),
    tls: {
      client: await clientTlsFrom(pki.dir, 'client'),
      admin: await clientTlsFrom(pki.dir, 'admin'),
    },
    gateway,
    matching,
    gatewayDb,
    matchingDb,
    namespace,
  };
}
