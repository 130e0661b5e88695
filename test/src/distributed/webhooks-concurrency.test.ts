import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { topicNames, type IntegrationEnvelope } from '@vop/contracts';
import { createKafkaBus, type Bus } from '@vop/messaging';
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
const COMPLETIONS = 30;

describe('distributed run: two webhook dispatchers share one bound of attempts per registration', () => {
  const processes: ServiceProcess[] = [];
  const databases: TestDatabase[] = [];
  let client: HttpsClient;
  let bus: Bus;
  let dataDir: string;
  let namespace: TestNamespace;
  let receiver: http.Server;
  let receiverUrl: string;
  const arrived = new Set<string>();
  let inFlight = 0;
  let mostInFlight = 0;
  let dispatcherPorts: number[] = [];

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
        setTimeout(() => {
          inFlight--;
          arrived.add(JSON.parse(body).data.request_id as string);
          res.writeHead(204).end();
        }, 250);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/slow`;

    const [firstPort, secondPort, gatewayPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    dispatcherPorts = [firstPort, secondPort];
    const dispatcherEnv = (port: number) => ({
      ...common,
      DATABASE_URL: webhooksDatabase.url,
      VOP_PORT: String(port),
      VOP_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
      VOP_WEBHOOK_ENDPOINT_CONCURRENCY: String(CONCURRENCY),
      VOP_WEBHOOK_POLL_INTERVAL_MS: '100',
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
    client?.close();
    await bus?.close();
    await Promise.all(processes.map((process) => process.stop()));
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
    for (const database of databases) await database.drop();
    await namespace?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('a burst to a slow receiver: every completion delivered, never more than the bound in flight', async (t) => {
    const created = await client.post('/webhooks', {
      url: receiverUrl,
      events: ['verification.success'],
      secret: 'a-bounded-receiver-secret',
    });
    assert.equal(created.status, 201, created.text);
    const topic = topicNames(namespace.name).verificationCompleted;
    const publishRound = async (): Promise<string[]> => {
      const ids = Array.from({ length: COMPLETIONS }, () => randomUUID());
      // Completions on every partition, so both dispatchers consume some of them.
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
      await eventually(async () => (ids.every((id) => arrived.has(id)) ? true : undefined), {
        timeoutMs: 120_000,
        intervalMs: 250,
        what: 'every completion delivered',
      });
      return ids;
    };
    const delivered = async (port: number): Promise<boolean> =>
      /webhook_attempts_total\{[^}]*outcome="delivered"[^}]*\} [1-9]/.test(
        await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
      );
    // Both dispatchers must make attempts for the bound to be shown shared, not merely kept by each
    // instance. Which partitions each holds is Kafka's choice (a late join may leave one idle for a
    // round), and the one that leases its completions first holds the bound until its own are nearly
    // sent (the other's are then claimed by whichever looks first), so rounds go on until both have
    // delivered.
    let rounds = 0;
    for (;;) {
      await publishRound();
      rounds++;
      const both = await Promise.all(dispatcherPorts.map(delivered));
      if (both.every(Boolean)) break;
      assert.ok(rounds < 10, `after ${rounds} rounds, one dispatcher has delivered nothing`);
    }
    t.diagnostic(
      `at most ${mostInFlight} attempts in flight (bound ${CONCURRENCY}), ${rounds} round(s)`,
    );
    assert.ok(mostInFlight <= CONCURRENCY, `${mostInFlight} attempts in flight at once`);
  });
});
