import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { topicNames, type IntegrationEnvelope } from '@vop/contracts';
import { createPgliteClient, type SqlClient } from '@vop/event-store';
import { createHttpApp, setPrincipal } from '@vop/http';
import { createInProcessBus, type Bus } from '@vop/messaging';
import { createLogger } from '@vop/observability';
import { createWebhookDispatcher, type WebhookDispatcher } from '../service.js';
import type { WebhookSettings } from '../settings.js';

/** Fast retries for tests; receivers on 127.0.0.1 are reachable through the allow-list only. */
export const TEST_SETTINGS: WebhookSettings = {
  httpsOnly: false,
  allowedNetworks: ['127.0.0.0/8', '::1'],
  attemptTimeoutMs: 1_000,
  retryDelaysMs: [30, 30, 30],
  endpointConcurrency: 2,
  maxInFlight: 32,
  pollIntervalMs: 20,
  endedRetentionMs: 86_400_000,
  pruneIntervalMs: 600_000,
};

/** The secret `register` gives a webhook unless told another. */
export const TEST_SECRET = 'a-receiver-secret-0123456789';

/** A VerificationCompleted's data for `participant` (`extra` overrides, e.g. `decidedAtRecording`). */
export function completion(
  participant: string,
  extra: Record<string, unknown> = {},
): { verificationId: string } & Record<string, unknown> {
  return {
    verificationId: randomUUID(),
    family: 'scheme',
    outcome: 'MTCH',
    score: 1,
    matchedName: 'Anna Schmidt',
    reasons: [],
    participant,
    completedAt: new Date().toISOString(),
    ...extra,
  };
}

export interface Harness {
  sql: SqlClient;
  bus: Bus;
  dispatcher: WebhookDispatcher;
  /** The dispatcher's routes; `x-test-participant` names the caller (the edge's job in production). */
  api(
    method: string,
    path: string,
    participant: string,
    body?: unknown,
    // Specs read parsed JSON bodies freely, as with @vop/testing's JsonResponse.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
  ): Promise<{ status: number; body: any }>;
  /** Registers a webhook of `participant` (201 asserted); returns its id. */
  register(participant: string, url: string, events?: string[], secret?: string): Promise<string>;
  /** Publishes a VerificationCompleted for `participant`; returns its verification id. */
  complete(participant: string, extra?: Record<string, unknown>): Promise<string>;
  /** Publishes an event (again, when given its `eventId`: a redelivery); returns its id. */
  publish(
    topic: 'verificationCompleted' | 'verificationCompletedDecided' | 'batchEvents',
    key: string,
    type: string,
    data: unknown,
    eventId?: string,
  ): Promise<string>;
  close(): Promise<void>;
}

export async function startHarness(
  settings: Partial<WebhookSettings> = {},
  clock?: () => Date,
  /** Writes what an older release left in the store before the dispatcher starts. */
  beforeStart?: (sql: SqlClient) => Promise<void>,
): Promise<Harness> {
  const sql = await createPgliteClient({});
  await beforeStart?.(sql);
  const bus = createInProcessBus({ redeliveryDelayMs: 20 });
  const logger = createLogger({ service: 'test', level: 'silent' });
  const dispatcher = createWebhookDispatcher({
    sql,
    bus,
    logger,
    settings: { ...TEST_SETTINGS, ...settings },
    ...(clock && { clock }),
  });
  await dispatcher.start();
  const app = createHttpApp({
    logger,
    respondingPsp: 'VOPBDEFFXXX',
    beforeRoutes: [
      (req, res, next) => {
        const participantId = req.get('x-test-participant');
        if (participantId)
          setPrincipal(res, {
            kind: 'certificate',
            participantId,
            fingerprint: '00',
            admin: false,
          });
        next();
      },
    ],
    routers: dispatcher.routers,
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const topics = topicNames('');

  async function publish(
    topic: 'verificationCompleted' | 'verificationCompletedDecided' | 'batchEvents',
    key: string,
    type: string,
    data: unknown,
    eventId = randomUUID(),
  ): Promise<string> {
    const envelope: IntegrationEnvelope = {
      eventId,
      type,
      version: 1,
      occurredAt: new Date().toISOString(),
      correlationId: eventId,
      data,
    };
    await bus.publish(topics[topic], [{ key, value: JSON.stringify(envelope) }]);
    return eventId;
  }

  const harness: Harness = {
    sql,
    bus,
    dispatcher,
    async api(method, path, participant, body) {
      const response = await fetch(base + path, {
        method,
        headers: { 'x-test-participant': participant, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    publish,
    async register(participant, url, events = ['verification.success'], secret = TEST_SECRET) {
      const created = await harness.api('POST', '/webhooks', participant, { url, events, secret });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.id as string;
    },
    async complete(participant, extra = {}) {
      const data = completion(participant, extra);
      await publish('verificationCompleted', data.verificationId, 'VerificationCompleted', data);
      return data.verificationId;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await dispatcher.stop();
      await bus.close();
      await sql.close();
    },
  };
  return harness;
}

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A real webhook receiver on 127.0.0.1: records what arrives and answers with what `answer`
 * decides (a status, headers, and optionally a promise to wait for first).
 */
export async function startReceiver(
  answer: (
    request: Received,
    index: number,
  ) =>
    { status: number; headers?: Record<string, string>; wait?: Promise<void> } | undefined = () =>
    undefined,
  port = 0,
) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const index = received.push(request) - 1;
      const decided = answer(request, index) ?? { status: 204 };
      void (decided.wait ?? Promise.resolve()).then(() => {
        res.writeHead(decided.status, decided.headers ?? {}).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const boundPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${boundPort}/hook`,
    port: boundPort,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
