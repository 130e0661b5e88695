import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import {
  eventually,
  freePort,
  freePortRange,
  germanIban,
  httpsClient,
  type HttpsClient,
} from '@vop/testing';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver.js';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const script = (name: string) => path.join(repoRoot, 'infra/local', name);
/** How long each server stays stopped; VOP_OUTAGE_MS=60000 repeats the run with a minute each. */
const OUTAGE_MS = Number(process.env['VOP_OUTAGE_MS'] ?? 20_000);
const WORKERS = 4;
/** The longest deadline of a family (3 s) and room for a loaded machine: a request not answered by then is lost. */
const ANSWER_WITHIN_MS = 5_000;
const SECRET = 'an-outage-receiver-secret';
const NAME = 'Kai Outage';
const IBAN = germanIban(737_373);

interface Answer {
  phase: string;
  status: number | 'unanswered';
  retryAfter: string | undefined;
  requestId: string | undefined;
  at: number;
}

/**
 * Waits while `progress` keeps moving until `done`; gives up only after `stallMs` without progress, so a
 * backlog drains at whatever pace the machine allows.
 */
async function whileProgressing(
  probe: () => Promise<{ done: boolean; progress: number }>,
  what: string,
  stallMs = 60_000,
): Promise<void> {
  let last = -1;
  let movedAt = Date.now();
  for (;;) {
    const { done, progress } = await probe();
    if (done) return;
    if (progress !== last) [last, movedAt] = [progress, Date.now()];
    if (Date.now() - movedAt > stallMs) throw new Error(`${what}: stalled at ${progress}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * The distributed deployment of `pnpm start:distributed` (infra/local/distributed.sh) on a PostgreSQL and a
 * Kafka of its own (never the suite's shared servers), under a steady load through both gateways, while
 * PostgreSQL and then Kafka are stopped for 20 s each.
 */
describe('distributed run: PostgreSQL and Kafka stopped for 20 s each under load', () => {
  let infraDir: string;
  let env: NodeJS.ProcessEnv;
  let gateways: HttpsClient[] = [];
  let admin: HttpsClient;
  let receiver: WebhookReceiver;
  let internalBase: number;
  const pidsAtStart = new Map<string, string>();
  /** Set until the run's test finished: the processes' logs are then kept for the failure's reader. */
  let unfinished = false;

  const sh = async (name: string, ...args: string[]) =>
    (await run('bash', [script(name), ...args], { env, timeout: 300_000 })).stdout;
  const pids = async () => {
    const dir = path.join(infraDir, 'data/distributed/pids');
    const found = new Map<string, string>();
    for (const file of await readdir(dir))
      found.set(file, (await readFile(path.join(dir, file), 'utf8')).trim());
    return found;
  };
  const logs = async () => {
    const dir = path.join(infraDir, 'data/distributed/logs');
    const found = new Map<string, string>();
    for (const file of await readdir(dir))
      found.set(file, await readFile(path.join(dir, file), 'utf8'));
    return found;
  };

  before(async () => {
    // Short: PostgreSQL's socket path must stay under 107 bytes; traversable by the postgres user.
    infraDir = await mkdtemp('/tmp/vop-outage-');
    await chmod(infraDir, 0o755);
    const [pgPort, kafkaPort, controllerPort, gateway1, gateway2] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    internalBase = await freePortRange(6);
    env = {
      ...process.env,
      VOP_INFRA_DIR: infraDir,
      VOP_DATA_DIR: path.join(infraDir, 'data'),
      VOP_PG_PORT: String(pgPort),
      VOP_KAFKA_PORT: String(kafkaPort),
      VOP_KAFKA_CONTROLLER_PORT: String(controllerPort),
      VOP_KAFKA_HEAP: '512m',
      VOP_GATEWAY_PORTS: `${gateway1} ${gateway2}`,
      VOP_INTERNAL_PORT_BASE: String(internalBase),
      LOG_LEVEL: 'warn',
      // The load is the outage's witness, not a budget's: no 429 may hide an answer.
      VOP_RATE_LIMITS: '{"default":100000000}',
      VOP_TEST_RATE_LIMITS: '{"default":100000000}',
      VOP_WEBHOOK_RETRY_SCHEDULE_MS: '100,200,400,800,1600,3200,5000,5000,5000,5000',
    };
    await sh('distributed.sh', 'start');
    for (const [file, pid] of await pids()) pidsAtStart.set(file, pid);
    const pki = path.join(infraDir, 'data/pki');
    const pem = (file: string) => readFile(path.join(pki, file), 'utf8');
    const caPem = await pem('ca.pem');
    const client = { caPem, certPem: await pem('client.pem'), keyPem: await pem('client-key.pem') };
    gateways = [gateway1, gateway2].map((port) =>
      httpsClient({ baseUrl: `https://127.0.0.1:${port}`, ...client }),
    );
    admin = httpsClient({
      baseUrl: `https://127.0.0.1:${gateway1}`,
      caPem,
      certPem: await pem('admin.pem'),
      keyPem: await pem('admin-key.pem'),
    });
    receiver = await startWebhookReceiver();
  });

  after(async () => {
    for (const client of [...gateways, admin]) client?.close();
    await receiver?.close();
    if (infraDir === undefined) return;
    await sh('distributed.sh', 'stop').catch(() => undefined);
    if (unfinished) {
      const kept = `${infraDir}-logs`;
      await cp(path.join(infraDir, 'data/distributed/logs'), kept, { recursive: true });
      console.error(`the processes' logs are kept in ${kept}`);
    }
    await rm(infraDir, { recursive: true, force: true });
  });

  it('keeps every process running, answers 201 or 503 with Retry-After (never 500), and completes every accepted verification once in every read model and webhook', async (t) => {
    unfinished = true;
    const registered = await gateways[0]!.post('/webhooks', {
      url: receiver.url('/hook'),
      events: ['verification.success', 'verification.failure'],
      secret: SECRET,
    });
    assert.equal(registered.status, 201, registered.text);
    assert.equal((await admin.post('/accounts', { iban: IBAN, name: NAME })).status, 201);

    const answers: Answer[] = [];
    let phase = 'before';
    let loading = true;
    const verifyOnce = async (gateway: HttpsClient): Promise<void> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), ANSWER_WITHIN_MS);
      });
      const sentIn = phase;
      const answer = await Promise.race([
        gateway.post('/verify', { name: NAME, iban: IBAN }).catch(() => 'late' as const),
        late,
      ]);
      clearTimeout(timer);
      const retryAfter = answer === 'late' ? undefined : answer.headers['retry-after'];
      answers.push({
        phase: sentIn,
        status: answer === 'late' ? 'unanswered' : answer.status,
        retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
        requestId: answer === 'late' ? undefined : (answer.body?.request_id as string | undefined),
        at: Date.now(),
      });
    };
    const workers = Array.from({ length: WORKERS }, async (_unused, index) => {
      while (loading) {
        await verifyOnce(gateways[index % gateways.length]!);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    });
    const accepted = () => answers.filter((answer) => answer.status === 201).length;
    const readiness = async () =>
      Promise.all(
        [0, 1, 2, 3, 4, 5].map(async (offset) => {
          const response = await fetch(`http://127.0.0.1:${internalBase + offset}/readyz`, {
            signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
          }).catch(() => undefined);
          return response?.status;
        }),
      );
    /** Stops a server for OUTAGE_MS under load; how long after its start requests are accepted again. */
    const outage = async (server: 'postgres.sh' | 'kafka.sh', name: string) => {
      await eventually(async () => (accepted() > 20 ? true : undefined), {
        timeoutMs: 60_000,
        what: 'requests accepted before the outage',
      });
      phase = `${name} down`;
      const stoppedAt = Date.now();
      await sh(server, 'stop');
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS / 2));
      const readyDuring = await readiness();
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS / 2));
      phase = `${name} back`;
      await sh(server, 'start');
      const startedAt = Date.now();
      await eventually(
        async () =>
          answers.some((answer) => answer.at > startedAt && answer.status === 201)
            ? true
            : undefined,
        { timeoutMs: 120_000, intervalMs: 100, what: `requests accepted after ${name} is back` },
      );
      const recoveredMs = Date.now() - startedAt;
      await eventually(
        async () =>
          (await readiness()).every((status) => status === 200) &&
          (await gateways[0]!.get('/readyz')).status === 200
            ? true
            : undefined,
        { timeoutMs: 120_000, intervalMs: 250, what: `every service ready after ${name}` },
      );
      return { name, outageMs: startedAt - stoppedAt, recoveredMs, readyDuring, backAt: startedAt };
    };

    const database = await outage('postgres.sh', 'PostgreSQL');
    const broker = await outage('kafka.sh', 'Kafka');
    phase = 'after';
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    loading = false;
    await Promise.all(workers);

    // Every process the script started is the one still running: none exited, none was restarted.
    assert.deepEqual(await pids(), pidsAtStart);
    assert.doesNotMatch(await sh('distributed.sh', 'status'), /stopped/);

    const byStatus: Record<string, Record<string, number>> = {};
    for (const answer of answers) {
      const counts = (byStatus[answer.phase] ??= {});
      counts[String(answer.status)] = (counts[String(answer.status)] ?? 0) + 1;
    }
    t.diagnostic(JSON.stringify({ outages: [database, broker], answersByPhase: byStatus }));
    const unexpected = answers.filter(
      (answer) =>
        answer.status !== 201 && !(answer.status === 503 && answer.retryAfter !== undefined),
    );
    assert.deepEqual(unexpected, [], 'every answer 201, or 503 with Retry-After');
    assert.ok(
      answers.some((answer) => answer.status === 503),
      'some requests met the database outage',
    );
    // While a dependency was down, every internal service said it was not ready.
    assert.deepEqual(database.readyDuring, [503, 503, 503, 503, 503, 503]);
    assert.deepEqual(broker.readyDuring, [503, 503, 503, 503, 503, 503]);

    const acceptedIds = new Set(
      answers.filter((answer) => answer.status === 201).map((answer) => answer.requestId),
    );
    assert.equal(acceptedIds.size, accepted(), 'one request id per accepted request');
    const deliveredIds = () =>
      new Set(receiver.received.map((request) => JSON.parse(request.body).data.request_id));
    await whileProgressing(async () => {
      const delivered = deliveredIds();
      return {
        done: [...acceptedIds].every((id) => delivered.has(id)),
        progress: delivered.size,
      };
    }, 'a webhook for every accepted verification');
    const webhooksSettledMs = Date.now() - broker.backAt;
    assert.equal(deliveredIds().size, acceptedIds.size, 'no webhook for a request not accepted');
    const webhookIds = new Set(receiver.received.map((request) => request.headers['webhook-id']));
    assert.equal(webhookIds.size, acceptedIds.size, 'one delivery (webhook-id) per verification');

    let figures = { usage: {} as Record<string, any>, stats: {} as Record<string, any> };
    await whileProgressing(async () => {
      const usage = (await admin.get('/analytics/usage?granularity=hour')).body;
      const stats = (await admin.get('/admin/stats?period=hour')).body;
      figures = { usage: usage.totals ?? {}, stats: stats.requests ?? {} };
      return {
        done:
          usage.totals?.total === acceptedIds.size &&
          usage.totals.byOutcome?.PENDING === undefined &&
          stats.requests?.successful === acceptedIds.size,
        progress: (stats.requests?.successful ?? 0) + (usage.totals?.total ?? 0),
      };
    }, 'analytics and stats at rest');
    const readModelsSettledMs = Date.now() - broker.backAt;
    assert.equal(figures.stats.total, acceptedIds.size);
    assert.equal(figures.stats.failed, 0);

    const health = await eventually(
      async () => {
        const report = await admin.get('/health/detailed');
        return report.body.status === 'healthy' ? report.body : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: '/health/detailed healthy' },
    );
    assert.deepEqual(
      health.services.map((service: { service: string }) => service.service).sort(),
      ['analytics', 'batch', 'gateway', 'matching', 'webhook-dispatcher'],
    );

    // An outage is told in lines of its own, never as a request's stack nor a line per request.
    const unavailable = answers.filter((answer) => answer.status === 503).length;
    for (const [file, text] of await logs()) {
      assert.doesNotMatch(text, /unhandled request error/, file);
      assert.doesNotMatch(text, /Unhandled 'error' event/, file);
      const ownWarnings = text
        .split('\n')
        .filter((line) => line.startsWith('{') && !line.includes('"logger":"kafkajs"'))
        .filter((line) => /"level":"(warn|error|fatal)"/.test(line)).length;
      assert.ok(ownWarnings * 20 < unavailable, `${file}: ${ownWarnings} warnings`);
    }
    t.diagnostic(
      JSON.stringify({
        accepted: acceptedIds.size,
        webhookRequests: receiver.received.length,
        analytics: figures.usage.total,
        stats: figures.stats.total,
        // From Kafka's start to the last webhook, and to analytics and stats at rest.
        webhooksSettledMs,
        readModelsSettledMs,
      }),
    );
    unfinished = false;
  });

  it('stops every process it started and the servers with `distributed.sh stop`', async () => {
    const started = [...(await pids()).values()].map(Number);
    await sh('distributed.sh', 'stop');
    for (const pid of started)
      assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `process ${pid} still running`);
    await assert.rejects(sh('postgres.sh', 'status'));
    await assert.rejects(sh('kafka.sh', 'status'));
  });
});
