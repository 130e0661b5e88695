import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { AssignerProtocol, Kafka, logLevel } from 'kafkajs';
import { TOPIC_PARTITIONS, topicNames, type IntegrationEnvelope } from '@vop/contracts';
import { createPostgresClient, type SqlClient } from '@vop/event-store';
import { createKafkaBus, partitionFor, type Bus } from '@vop/messaging';
import { DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER, ensureDevPki } from '@vop/pki';
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

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const main = (service: string) => path.join(repoRoot, `services/${service}/dist/main.js`);
const INTERNAL_SECRET = randomUUID() + randomUUID();
const CONCURRENCY = 3;
/** Completions per partition: more than the bound, so each dispatcher alone could fill it. */
const PER_PARTITION = 2 * CONCURRENCY;

describe('distributed run: two webhook dispatchers share one bound of attempts per registration', () => {
  const processes: ServiceProcess[] = [];
  const databases: TestDatabase[] = [];
  let client: HttpsClient;
  let bus: Bus;
  let kafka: Kafka;
  let webhooksDb: SqlClient;
  let dataDir: string;
  let namespace: TestNamespace;
  let receiver: http.Server;
  let receiverUrl: string;
  const arrived = new Set<string>();
  let inFlight = 0;
  let mostInFlight = 0;
  /** While set, the receiver holds every attempt unanswered until it is opened. */
  let closed: Promise<void> | undefined;
  let open = () => {};

  before(async () => {
    const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS');
    const [gatewayDatabase, webhooksDatabase] = await Promise.all([
      createTestDatabase('e2e_whc_gateway'),
      createTestDatabase('e2e_whc_webhooks'),
    ]);
    databases.push(gatewayDatabase, webhooksDatabase);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-e2e-webhook-bound-'));
    const pki = await ensureDevPki(dataDir);
    namespace = createTestNamespace('e2e-whc', brokers);
    const common = {
      KAFKA_BROKERS: brokers,
      VOP_KAFKA_NAMESPACE: namespace.name,
      VOP_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      VOP_INTERNAL_SECRET: INTERNAL_SECRET,
    };
    // A slow receiver that counts the attempts it is answering at once.
    receiver = http.createServer((req, res) => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        void (closed ?? Promise.resolve()).then(() =>
          setTimeout(() => {
            inFlight--;
            arrived.add(JSON.parse(body).data.request_id as string);
            res.writeHead(204).end();
          }, 250),
        );
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/slow`;

    const [firstPort, secondPort, gatewayPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const dispatcherEnv = (port: number) => ({
      ...common,
      DATABASE_URL: webhooksDatabase.url,
      VOP_PORT: String(port),
      VOP_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
      VOP_WEBHOOK_ENDPOINT_CONCURRENCY: String(CONCURRENCY),
      VOP_WEBHOOK_POLL_INTERVAL_MS: '100',
      // Attempts are held unanswered for a while below; they must not time out meanwhile.
      VOP_WEBHOOK_ATTEMPT_TIMEOUT_MS: '60000',
    });
    processes.push(
      startServiceProcess(
        'webhook-dispatcher-1',
        main('webhook-dispatcher'),
        dispatcherEnv(firstPort),
      ),
      startServiceProcess(
        'webhook-dispatcher-2',
        main('webhook-dispatcher'),
        dispatcherEnv(secondPort),
      ),
      startServiceProcess('gateway', main('gateway'), {
        ...common,
        DATABASE_URL: gatewayDatabase.url,
        VOP_PORT: String(gatewayPort),
        VOP_SERVICE_URLS: JSON.stringify({
          'webhook-dispatcher': `http://127.0.0.1:${firstPort}`,
        }),
      }),
    );
    const read = (file: string) => readFile(file, 'utf8');
    client = httpsClient({
      baseUrl: `https://127.0.0.1:${gatewayPort}`,
      caPem: await read(pki.caPath),
      certPem: await read(pki.clientCertPath),
      keyPem: await read(pki.clientKeyPath),
    });
    bus = createKafkaBus({ brokers: brokers.split(','), clientId: `e2e-whc-${randomUUID()}` });
    kafka = new Kafka({
      clientId: 'e2e-whc-admin',
      brokers: brokers.split(','),
      logLevel: logLevel.NOTHING,
    });
    webhooksDb = createPostgresClient({ connectionString: webhooksDatabase.url, max: 2 });
    await eventually(
      async () => {
        for (const process of processes)
          if (process.child.exitCode !== null)
            throw new Error(`${process.name} exited:\n${process.output()}`);
        const ready = await Promise.all(
          [firstPort, secondPort].map((port) =>
            fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null),
          ),
        );
        const gateway = await client.get('/readyz').catch(() => undefined);
        return ready.every((answer) => answer?.status === 200) && gateway?.status === 200
          ? true
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: 'gateway and both dispatchers ready' },
    );
  });

  after(async () => {
    open();
    client?.close();
    await webhooksDb?.close();
    await bus?.close();
    await Promise.all(processes.map((process) => process.stop()));
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
    for (const database of databases) await database.drop();
    await namespace?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /** The partitions of `topic` each member of the dispatchers' group holds, once both hold some. */
  const partitionsOfEachDispatcher = async (topic: string): Promise<number[][]> => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      return await eventually(
        async () => {
          const {
            groups: [group],
          } = await admin.describeGroups([`${namespace.name}webhook-dispatcher`]);
          if (group?.state !== 'Stable' || group.members.length !== 2) return undefined;
          const held = group.members.map(
            (member) =>
              AssignerProtocol.MemberAssignment.decode(member.memberAssignment)?.assignment[
                topic
              ] ?? [],
          );
          return held.every((partitions) => partitions.length > 0) ? held : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 250, what: 'both dispatchers holding partitions' },
      );
    } finally {
      await admin.disconnect();
    }
  };

  /** Publishes PER_PARTITION completions to each of `partitions`; their request ids. */
  const publishTo = async (topic: string, partitions: number[]): Promise<string[]> => {
    const ids: string[] = [];
    for (const partition of partitions) {
      let count = 0;
      while (count < PER_PARTITION) {
        const id = randomUUID();
        if (partitionFor(id, TOPIC_PARTITIONS) !== partition) continue;
        ids.push(id);
        count++;
      }
    }
    await bus.publish(
      topic,
      ids.map((verificationId) => {
        const envelope: IntegrationEnvelope = {
          eventId: randomUUID(),
          type: 'VerificationCompleted',
          version: 1,
          occurredAt: new Date().toISOString(),
          correlationId: verificationId,
          data: {
            verificationId,
            family: 'request-result',
            outcome: 'MTCH',
            score: 1,
            reasons: [],
            participant: DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER,
            completedAt: new Date().toISOString(),
          },
        };
        return { key: verificationId, value: JSON.stringify(envelope) };
      }),
    );
    return ids;
  };

  const queued = async (): Promise<number> => {
    const { rows } = await webhooksDb.query<{ count: string }>(
      'SELECT count(*)::text AS count FROM webhooks.deliveries',
    );
    return Number(rows[0]!.count);
  };

  // Which dispatcher sends a delivery is a race for leases, so the test does not wait for both to
  // send. It makes the case a per-instance bound would fail: one dispatcher holds the bound with
  // attempts the receiver leaves unanswered, and only then does the other consume completions of
  // its own. Those must wait; were the bound kept per instance, they would be sent at once.
  it('one dispatcher holds the bound: the other’s own completions wait, then all are delivered', async (t) => {
    const created = await client.post('/webhooks', {
      url: receiverUrl,
      events: ['verification.success'],
      secret: 'a-bounded-receiver-secret',
    });
    assert.equal(created.status, 201, created.text);
    const topic = topicNames(namespace.name).verificationCompleted;
    const [first, second] = await partitionsOfEachDispatcher(topic);
    closed = new Promise((resolve) => (open = resolve));

    const firstIds = await publishTo(topic, first!);
    await eventually(async () => (inFlight === CONCURRENCY ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 50,
      what: 'the first dispatcher filling the bound',
    });
    const secondIds = await publishTo(topic, second!);
    const all = [...firstIds, ...secondIds];
    await eventually(async () => ((await queued()) === all.length ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 100,
      what: 'the second dispatcher queueing its completions',
    });
    // Ten of the dispatchers' looks for due deliveries, with the bound full.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(mostInFlight, CONCURRENCY, 'attempts in flight while the bound was held');

    open();
    await eventually(async () => (all.every((id) => arrived.has(id)) ? true : undefined), {
      timeoutMs: 120_000,
      intervalMs: 250,
      what: 'every completion delivered',
    });
    t.diagnostic(
      `${firstIds.length} + ${secondIds.length} completions, at most ${mostInFlight} in flight`,
    );
    assert.ok(mostInFlight <= CONCURRENCY, `${mostInFlight} attempts in flight at once`);
  });
});
