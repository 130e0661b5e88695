import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
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
  type TestNamespace,
} from '@vop/testing';
import { Webhook } from 'standardwebhooks';
import {
  startWebhookReceiver,
  type ReceivedWebhook,
  type WebhookReceiver,
} from '../webhook-receiver.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const main = (service: string) => path.join(repoRoot, `services/${service}/dist/main.js`);
const INTERNAL_SECRET = randomUUID() + randomUUID();
const SECRET = 'a-distributed-receiver-secret';
const VERIFICATIONS = 60;
const DEFERRED_FAIL_AFTER_MS = 30_000;

describe('distributed run: the webhook dispatcher as its own process behind the gateway', () => {
  const processes: ServiceProcess[] = [];
  const databases: TestDatabase[] = [];
  let client: HttpsClient;
  let admin: HttpsClient;
  let webhooksDb: SqlClient;
  let dataDir: string;
  let dispatcherEnv: Record<string, string>;
  let gatewayEnv: Record<string, string>;
  let caPem: string;
  let clientPem: { certPem: string; keyPem: string };
  let receiver: WebhookReceiver | undefined;
  /** What the receiver got, in order of arrival. */
  let received: ReceivedWebhook[] = [];
  let receiverUrl: string;

  let namespace: TestNamespace;

  before(async () => {
    const brokers = requireEnv('VOP_TEST_KAFKA_BROKERS');
    namespace = createTestNamespace('e2e-wh', brokers);
    const [gatewayDatabase, matchingDatabase, webhooksDatabase] = await Promise.all([
      createTestDatabase('e2e_wh_gateway'),
      createTestDatabase('e2e_wh_matching'),
      createTestDatabase('e2e_wh_webhooks'),
    ]);
    databases.push(gatewayDatabase, matchingDatabase, webhooksDatabase);
    webhooksDb = createPostgresClient({ connectionString: webhooksDatabase.url, max: 2 });
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-e2e-webhooks-'));
    const pki = await ensureDevPki(dataDir);
    const common = {
      KAFKA_BROKERS: brokers,
      VOP_KAFKA_NAMESPACE: namespace.name,
      VOP_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      VOP_INTERNAL_SECRET: INTERNAL_SECRET,
    };
    // A receiver that takes its time, so the dispatcher is killed with attempts in flight.
    receiver = await startWebhookReceiver({ delayMs: 100 });
    receiverUrl = receiver.url('/hook');
    received = receiver.received;

    const [matchingPort, dispatcherPort, gatewayPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    processes.push(
      startServiceProcess('matching', main('matching'), {
        ...common,
        DATABASE_URL: matchingDatabase.url,
        VOP_KEYSTORE_DATABASE_URL: gatewayDatabase.url,
        VOP_PORT: String(matchingPort),
      }),
    );
    dispatcherEnv = {
      ...common,
      DATABASE_URL: webhooksDatabase.url,
      VOP_PORT: String(dispatcherPort),
      VOP_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
      VOP_WEBHOOK_ATTEMPT_TIMEOUT_MS: '1000',
      VOP_WEBHOOK_RETRY_SCHEDULE_MS: '100,200,400,800,1600,3200',
    };
    processes.push(
      startServiceProcess('webhook-dispatcher', main('webhook-dispatcher'), dispatcherEnv),
    );
    gatewayEnv = {
      ...common,
      DATABASE_URL: gatewayDatabase.url,
      VOP_PORT: String(gatewayPort),
      VOP_INSTANCE_ID: 'wh-g1',
      // Long enough for every request of the first test to complete on a loaded machine.
      VOP_DEFERRED_VERIFICATION_FAIL_AFTER_MS: String(DEFERRED_FAIL_AFTER_MS),
      VOP_SERVICE_URLS: JSON.stringify({
        matching: `http://127.0.0.1:${matchingPort}`,
        'webhook-dispatcher': `http://127.0.0.1:${dispatcherPort}`,
      }),
    };
    processes.push(startServiceProcess('gateway', main('gateway'), gatewayEnv));
    const read = (file: string) => readFile(file, 'utf8');
    caPem = await read(pki.caPath);
    const baseUrl = `https://127.0.0.1:${gatewayPort}`;
    clientPem = { certPem: await read(pki.clientCertPath), keyPem: await read(pki.clientKeyPath) };
    client = httpsClient({ baseUrl, caPem, ...clientPem });
    admin = httpsClient({
      baseUrl,
      caPem,
      certPem: await read(pki.adminCertPath),
      keyPem: await read(pki.adminKeyPath),
    });
    await eventually(
      async () => {
        for (const process of processes)
          if (process.child.exitCode !== null)
            throw new Error(`${process.name} exited:\n${process.output()}`);
        const ready = await fetch(`http://127.0.0.1:${dispatcherPort}/readyz`).catch(() => null);
        const gateway = await client.get('/readyz').catch(() => undefined);
        return ready?.status === 200 && gateway?.status === 200 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: 'gateway and dispatcher ready' },
    );
  });

  after(async () => {
    client?.close();
    admin?.close();
    await Promise.all(processes.map((process) => process.stop()));
    await receiver?.close();
    await webhooksDb?.close();
    for (const database of databases) await database.drop();
    await namespace?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('registers through the gateway, delivers every completion once signed, and loses nothing when the dispatcher is killed -9 mid-delivery', async (t) => {
    const created = await client.post('/webhooks', {
      url: receiverUrl,
      events: ['verification.success'],
      secret: SECRET,
    });
    assert.equal(created.status, 201, created.text);
    const webhookId = created.body.id as string;
    assert.deepEqual((await client.get('/webhooks')).body.webhooks, [created.body]);
    const invalid = await client.post('/webhooks', { url: receiverUrl, events: ['nope'] });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.error.code, 'INVALID_REQUEST');

    const iban = germanIban(424_242);
    assert.equal((await admin.post('/accounts', { iban, name: 'Kai Webhook' })).status, 201);
    const requestIds = new Set<string>();
    for (let index = 0; index < VERIFICATIONS; index++) {
      const receipt = await client.post('/verify', { name: 'Kai Webhook', iban });
      assert.equal(receipt.status, 201, receipt.text);
      requestIds.add(receipt.body.request_id as string);
      if (index === VERIFICATIONS / 3) {
        // Wait for attempts in flight, then crash the dispatcher and start it again.
        await eventually(async () => (received.length > 0 ? true : undefined), {
          timeoutMs: 30_000,
          what: 'a first delivery',
        });
        const dispatcher = processes[1] as ServiceProcess;
        await dispatcher.kill();
        processes[1] = startServiceProcess(
          'webhook-dispatcher-restarted',
          main('webhook-dispatcher'),
          dispatcherEnv,
        );
      }
    }

    await eventually(
      async () => {
        const arrived = new Set(
          received.map((request) => JSON.parse(request.body).data.request_id),
        );
        return [...requestIds].every((id) => arrived.has(id)) ? true : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 250, what: 'every completion delivered' },
    );
    const verifier = new Webhook(new TextEncoder().encode(SECRET), { format: 'raw' });
    for (const request of received) verifier.verify(request.body, request.headers as never);
    const arrivedIds = received.map((request) => JSON.parse(request.body).data.request_id);
    const duplicates = arrivedIds.length - new Set(arrivedIds).size;
    t.diagnostic(
      `${arrivedIds.length} requests for ${VERIFICATIONS} completions: ${duplicates} duplicates`,
    );
    assert.equal(new Set(arrivedIds).size, VERIFICATIONS);

    // The receiver counts a request when it arrives; the dispatcher records it once answered.
    const statuses = async () =>
      (
        await webhooksDb.query<{ status: string; count: string }>(
          `SELECT status, count(*)::text AS count FROM webhooks.deliveries GROUP BY status`,
        )
      ).rows;
    await eventually(async () => ((await statuses()).length === 1 ? true : undefined), {
      what: 'every delivery recorded',
    });
    assert.deepEqual(await statuses(), [{ status: 'delivered', count: String(VERIFICATIONS) }]);
    const log = await client.get(`/webhooks/${webhookId}/deliveries?status=delivered&limit=500`);
    assert.equal(log.status, 200);
    assert.equal(log.body.total, VERIFICATIONS);
  });

  it('with matching stopped, a request left to matching ends as failed (TIMEOUT) after its limit and is delivered as a signed verification.failure', async () => {
    // Only a request the gateway does not decide itself can wait for matching: a second gateway that
    // leaves single checks to matching (VOP_SINGLE_CHECKS_DECIDED_BY), as a gateway of a release before
    // decisions at recording did.
    const port = await freePort();
    const leaving = startServiceProcess('gateway-leaving-to-matching', main('gateway'), {
      ...gatewayEnv,
      VOP_PORT: String(port),
      VOP_INSTANCE_ID: 'wh-g2',
      VOP_SINGLE_CHECKS_DECIDED_BY: 'matching',
    });
    processes.push(leaving);
    const leavingClient = httpsClient({
      baseUrl: `https://127.0.0.1:${port}`,
      caPem,
      ...clientPem,
    });
    const failureReceiver = await startWebhookReceiver();
    try {
      await eventually(
        async () => {
          if (leaving.child.exitCode !== null)
            throw new Error(`the second gateway exited:\n${leaving.output()}`);
          return (await leavingClient.get('/readyz').catch(() => undefined))?.status === 200
            ? true
            : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200, what: 'the second gateway ready' },
      );
      const created = await client.post('/webhooks', {
        url: failureReceiver.url('/failures'),
        events: ['verification.failure'],
        secret: SECRET,
      });
      assert.equal(created.status, 201, created.text);
      await (processes[0] as ServiceProcess).stop();
      const receipt = await leavingClient.post('/verify', {
        name: 'Kai Webhook',
        iban: germanIban(424_242),
      });
      assert.equal(receipt.status, 201, receipt.text);
      const requestId = receipt.body.request_id as string;

      const delivery = await eventually(
        async () =>
          failureReceiver.received.find(
            (request) => JSON.parse(request.body).data.request_id === requestId,
          ),
        { timeoutMs: DEFERRED_FAIL_AFTER_MS + 60_000, intervalMs: 500, what: 'the failure' },
      );
      const verifier = new Webhook(new TextEncoder().encode(SECRET), { format: 'raw' });
      const payload = verifier.verify(delivery.body, delivery.headers as never) as {
        type: string;
        data: Record<string, unknown>;
      };
      assert.equal(payload.type, 'verification.failure');
      assert.equal(payload.data.reason, 'TIMEOUT');
      assert.equal(payload.data.family, 'request-result');
      const result = await eventually(async () => {
        const response = await client.get(`/verify/${requestId}`);
        return response.status === 200 ? response : undefined;
      });
      assert.equal(result.body.status, 'FAILED');
      assert.equal(result.body.reason, 'TIMEOUT');
    } finally {
      leavingClient.close();
      await failureReceiver.close();
    }
  });
});
