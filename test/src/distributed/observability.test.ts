import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPostgresClient, type SqlClient } from '@vop/event-store';
import { Kafka, logLevel } from 'kafkajs';
import type { DevPki } from '@vop/pki';
import {
  eventually,
  freePort,
  germanIban,
  requireEnv,
  type HttpsClient,
  type TestNamespace,
} from '@vop/testing';
import { schemeRequest } from '../embedded/fixtures.js';
import { startOtlpReceiver, SPAN_KIND, type ReceivedSpan } from '../observability/otlp-receiver.js';
import { prometheusPath, promtoolPath } from '../observability/prometheus.js';
import { INTERNAL_SERVICES, startCluster, type Cluster } from './cluster.js';

/** Each service's consumer groups (after the namespace; patterns) and outbox relays, as its lag series. */
const LAG_SERIES = {
  gateway: {
    // No waiters group: one gateway's results group wakes its callers (two-gateways.test.ts has it).
    groups: [
      'gateway-decision-accounts',
      'gateway-verification-results',
      'gateway-core-banking-feed',
    ],
    relays: ['gateway-outbox'],
  },
  matching: {
    groups: ['matching-accounts', 'matching-verifications', 'matching-batch-verifications'],
    relays: ['matching-outbox', 'matching-batch-outbox'],
  },
  // Its domestic accounts come with its copy's deliveries (batch-decision-accounts).
  batch: { groups: ['batch-progress', 'batch-decision-accounts'], relays: ['batch-outbox'] },
  'webhook-dispatcher': { groups: ['webhook-dispatcher'], relays: ['webhook-dead-letters'] },
  analytics: { groups: ['analytics-projections-g\\d+'], relays: [] },
} as const satisfies Record<'gateway' | (typeof INTERNAL_SERVICES)[number], object>;
const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const HOLDER = { iban: germanIban(424_242), name: 'Ingrid Bergström-Kowalczyk' };

describe('observability of a distributed run (gateway and matching on real Kafka and PostgreSQL)', () => {
  const emitted: string[] = [];
  let cluster: Cluster;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let gatewayDb: SqlClient;
  let dataDir: string;
  let gatewayPort: number;
  let internalUrls: Map<string, string>;
  let matchingUrl: string;
  let client: HttpsClient;
  let admin: HttpsClient;
  let pki: DevPki;
  let prometheus: ChildProcess | undefined;
  let registryUrl: string;
  let namespace: TestNamespace;
  let traceId = '';
  let callerSpanId = '';

  before(async () => {
    registryUrl = requireEnv('VOP_TEST_SCHEMA_REGISTRY_URL');
    receiver = await startOtlpReceiver();
    cluster = await startCluster({
      prefix: 'obs',
      env: {
        SCHEMA_REGISTRY_URL: registryUrl,
        LOG_LEVEL: 'debug',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      onProcess: (service) => {
        service.child.stdout?.on('data', (chunk: Buffer) => emitted.push(chunk.toString('utf8')));
        service.child.stderr?.on('data', (chunk: Buffer) => emitted.push(chunk.toString('utf8')));
      },
    });
    ({ namespace, dataDir, pki, gatewayPort, internalUrls, client, admin } = cluster);
    matchingUrl = internalUrls.get('matching')!;
    gatewayDb = createPostgresClient({ connectionString: cluster.gatewayDatabase.url, max: 2 });
    const created = await admin.post('/accounts', HOLDER);
    assert.equal(created.status, 201, created.text);
    await eventually(
      async () => {
        const { rows } = await gatewayDb.query<{ count: string }>(
          `SELECT count(*)::text AS count FROM gateway_decisions.accounts WHERE status = 'active'`,
        );
        return Number(rows[0]?.count) === 1 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: "the account in the gateway's copy" },
    );
  });

  after(async () => {
    if (prometheus && prometheus.exitCode === null) {
      prometheus.kill('SIGTERM');
      await new Promise((resolve) => prometheus!.once('exit', resolve));
    }
    await gatewayDb?.close();
    await cluster?.stop();
    await receiver?.close();
  });

  it('one verification is one trace: gateway SERVER → PRODUCER of the request and of its end decided there (on the `.decided` topics) → every consumer, and matching never sees it', async () => {
    // A first check on a cold, loaded machine can miss the 3 s deadline (504): the trace is that of the
    // first check answered, each attempt in a trace of its own.
    const response = await eventually(
      async () => {
        traceId = randomBytes(16).toString('hex');
        callerSpanId = randomBytes(8).toString('hex');
        const answer = await client.post('/vop/verify', schemeRequest(HOLDER.name, HOLDER.iban), {
          headers: { traceparent: `00-${traceId}-${callerSpanId}-01` },
        });
        assert.ok([200, 504].includes(answer.status), answer.text);
        return answer.status === 200 ? answer : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'a verification answered in time' },
    );
    assert.equal((response.body as { partyNameMatch: string }).partyNameMatch, 'MTCH');

    const find = (spans: ReceivedSpan[], service: string, kind: number, topic?: string) =>
      spans.find(
        (span) =>
          span.service === service &&
          span.kind === kind &&
          (topic === undefined ||
            String(span.attributes['messaging.destination.name']).includes(topic)),
      );
    const chain = await eventually(
      async () => {
        const spans = receiver.spans.filter((span) => span.traceId === traceId);
        const server = find(spans, 'gateway', SPAN_KIND.SERVER);
        // Decided by the gateway, the request travels on the twin topic that only analytics reads.
        const consumed = find(
          spans,
          'analytics',
          SPAN_KIND.CONSUMER,
          'verification-requested.decided',
        );
        return server && consumed ? { server, consumed } : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: 'the spans of the verification' },
    );
    assert.equal(chain.server.parentSpanId, callerSpanId, 'continues the caller trace');
    assert.equal(chain.server.name, 'POST /vop/verify');
    assert.equal(chain.server.attributes['http.route'], '/vop/verify');
    /**
     * Whether a consumer's span is the child of the gateway's publication on `topic`, and that of the
     * SERVER span: a publication tried again (a topic's first, say) is a child of the attempt before.
     */
    const publishedByTheServer = (consumer: ReceivedSpan, topic: string): boolean => {
      const byId = new Map(
        receiver.spans
          .filter((span) => span.traceId === traceId)
          .map((span) => [span.spanId, span]),
      );
      for (
        let parent = byId.get(consumer.parentSpanId);
        parent !== undefined &&
        parent.service === 'gateway' &&
        parent.kind === SPAN_KIND.PRODUCER &&
        String(parent.attributes['messaging.destination.name']).includes(topic);
        parent = byId.get(parent.parentSpanId)
      )
        if (parent.parentSpanId === chain.server.spanId) return true;
      return false;
    };
    assert.ok(publishedByTheServer(chain.consumed, 'verification-requested.decided'));

    // The completion reaches every consumer of its topic in the same trace, as their child (the
    // gateway's results group reads only ends decided elsewhere; batch progress only batch entries').
    const others = await eventually(
      async () => {
        const spans = receiver.spans.filter((span) => span.traceId === traceId);
        const consumers = ['webhook-dispatcher', 'analytics'].map((service) =>
          find(spans, service, SPAN_KIND.CONSUMER, 'verification-completed.decided'),
        );
        return consumers.every((span) => span !== undefined) ? consumers : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: 'the other consumers of the completion' },
    );
    for (const consumer of others)
      assert.ok(
        publishedByTheServer(consumer!, 'verification-completed.decided'),
        `${consumer!.service} consumed the gateway's publication of the end`,
      );
    // By now matching's spans, had it fetched the request or decided it too, would have been exported.
    assert.ok(
      !receiver.spans.some((span) => span.traceId === traceId && span.service === 'matching'),
      'matching neither received nor published anything of it',
    );
  });

  it('events travel in the Confluent wire format, their schemas registered per topic', async () => {
    const subjects = (await (await fetch(`${registryUrl}/subjects`)).json()) as string[];
    for (const topic of [
      'vop.verification-requested.decided.v1',
      'vop.verification-completed.decided.v1',
    ])
      assert.ok(subjects.includes(`${namespace.name}${topic}-value`), `${topic} has a subject`);
    const kafka = new Kafka({
      clientId: 'obs-raw',
      brokers: requireEnv('VOP_TEST_KAFKA_BROKERS').split(','),
      logLevel: logLevel.NOTHING,
    });
    const consumer = kafka.consumer({ groupId: `obs-raw-${randomUUID()}` });
    const values: Buffer[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({
        topic: `${namespace.name}vop.verification-requested.decided.v1`,
        fromBeginning: true,
      });
      await consumer.run({
        eachMessage: async ({ message }) => void (message.value && values.push(message.value)),
      });
      const [first] = await eventually(async () => (values.length > 0 ? values : undefined), {
        timeoutMs: 60_000,
        intervalMs: 200,
        what: 'a raw verification request',
      });
      assert.equal(first![0], 0, 'the magic byte of the Confluent wire format');
      const schema = (await (
        await fetch(`${registryUrl}/schemas/ids/${first!.readInt32BE(1)}`)
      ).json()) as {
        schemaType: string;
        schema: string;
      };
      assert.equal(schema.schemaType, 'JSON');
      assert.match(schema.schema, /"eventId"/);
    } finally {
      await consumer.disconnect();
    }
  });

  it('every service serves /metrics that promtool accepts without a warning, with lag gauges and whole route templates', async () => {
    const unknown = await client.get(`/verify/${randomUUID()}`);
    assert.equal(unknown.status, 404, unknown.text);
    // A response is counted when it finishes on the server, which may come after the client has read it.
    const notFoundLabel =
      /route="\/verify\/:requestId\|\/api\/verify\/:requestId",status_code="404"/;
    const gatewayMetrics = await eventually(
      async () => {
        const text = (await client.get('/metrics')).text;
        return notFoundLabel.test(text) ? text : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the 404 of GET /verify/{id} counted' },
    );
    const served: Array<[string, string]> = [['gateway', gatewayMetrics]];
    for (const [service, url] of internalUrls)
      served.push([service, await (await fetch(`${url}/metrics`)).text()]);
    for (const [service, text] of served) {
      const checked = spawnSync(promtoolPath(), ['check', 'metrics'], {
        input: text,
        encoding: 'utf8',
      });
      assert.equal(checked.status, 0, `${service}: ${checked.stdout}${checked.stderr}`);
      assert.equal((checked.stdout + checked.stderr).trim(), '', `${service}: no warning`);
      const { groups, relays } = LAG_SERIES[service as keyof typeof LAG_SERIES];
      // One gateway's results group holds every partition and wakes its callers itself.
      assert.doesNotMatch(text, /group="[^"]*gateway-waiters-/, `${service}: no waiters group`);
      for (const group of groups)
        assert.match(
          text,
          new RegExp(
            `^consumer_lag\\{topic="${escaped(namespace.name)}[^"]+",partition="\\d+",group="${escaped(namespace.name)}${group}",service="${service}"\\} \\d+$`,
            'm',
          ),
          `${service}: consumer_lag of ${group}`,
        );
      for (const relay of relays)
        assert.match(
          text,
          new RegExp(`^outbox_lag_events\\{relay="${relay}",service="${service}"\\} \\d+$`, 'm'),
          `${service}: outbox_lag_events of ${relay}`,
        );
      if (relays.length === 0) assert.doesNotMatch(text, /^outbox_lag_events\{/m);
    }
    assert.doesNotMatch(gatewayMetrics, /route="\/:requestId"/);
  });

  it('a real Prometheus scrapes the gateway over mutual TLS and matching, and sees both up', async () => {
    const port = await freePort();
    const config = path.join(dataDir, 'prometheus.yml');
    await writeFile(
      config,
      [
        'global: { scrape_interval: 1s, scrape_timeout: 1s }',
        'scrape_configs:',
        '  - job_name: gateway',
        '    scheme: https',
        `    tls_config: { ca_file: "${pki.caPath}", cert_file: "${pki.clientCertPath}", key_file: "${pki.clientKeyPath}" }`,
        `    static_configs: [{ targets: ["127.0.0.1:${gatewayPort}"] }]`,
        '  - job_name: matching',
        `    static_configs: [{ targets: ["${new URL(matchingUrl).host}"] }]`,
        '',
      ].join('\n'),
    );
    prometheus = spawn(
      prometheusPath(),
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${path.join(dataDir, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    const health = await eventually(
      async () => {
        const answer = await fetch(`http://127.0.0.1:${port}/api/v1/targets`).catch(
          () => undefined,
        );
        if (answer?.status !== 200) return undefined;
        const { data } = (await answer.json()) as {
          data: { activeTargets: Array<{ labels: { job: string }; health: string }> };
        };
        const byJob = Object.fromEntries(
          data.activeTargets.map((target) => [target.labels.job, target.health]),
        );
        return byJob['gateway'] === 'up' && byJob['matching'] === 'up' ? byJob : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'Prometheus targets up' },
    );
    assert.deepEqual(health, { gateway: 'up', matching: 'up' });
  });

  it('log lines carry trace ids, and no name or IBAN reaches the logs, metrics or spans', async () => {
    // Wait until the spans of every request so far are exported.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const logLines = emitted
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(
      logLines.some((line) => line['trace_id'] === traceId),
      'a log line of the verification carries its trace id',
    );
    const metrics = await Promise.all(
      [...internalUrls.values()].map(async (url) => (await fetch(`${url}/metrics`)).text()),
    );
    const everything = [
      emitted.join(''),
      receiver.rawBodies.join('\n'),
      (await client.get('/metrics')).text,
      ...metrics,
    ].join('\n');
    assert.ok(everything.length > 10_000, 'the run emitted logs, spans and metrics');
    for (const secret of [HOLDER.iban, HOLDER.name, 'Bergström', 'Kowalczyk'])
      assert.ok(!everything.includes(secret), `${secret} must not be emitted`);
  });
});
