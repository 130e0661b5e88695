import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  createTestDatabase,
  createTestNamespace,
  freePort,
  startServiceProcess,
  type ServiceProcess,
} from '@vop/testing';
import { processCpuMs, untilQuiet } from './process-cpu.js';
import { runContext } from './run-context.js';

/**
 * What an idle deployment costs: starts the embedded service, and (with --distributed) every service
 * of the distributed deployment on the shared PostgreSQL and Kafka, waits for start-up to end, lets
 * them settle --settle s, then reads each process's CPU time over --seconds s (default 60) from /proc. PostgreSQL and Kafka are
 * shared with other users of the machine and not counted.
 * Usage: node bench/dist/idle-cost.bench.js [--distributed] [--no-embedded] [--seconds 60] [--settle 20]
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const SECONDS = option('--seconds', 60);
const SETTLE_SECONDS = option('--settle', 20);
const context = runContext();
const script = (service: string) => path.join(repoRoot, `services/${service}/dist/main.js`);

/** Each process's share of one core over the window, in %. */
async function measure(label: string, processes: ServiceProcess[]): Promise<string> {
  // Start-up (migrations, seeds, joining groups) can outlast --settle on a loaded box; its CPU is not
  // an idle cost.
  await untilQuiet(processes.map((service) => service.child.pid as number));
  await sleep(SETTLE_SECONDS * 1000);
  const exited = processes.filter((service) => service.child.exitCode !== null);
  if (exited.length > 0)
    throw new Error(`${exited.map((s) => `${s.name}: ${s.output().slice(-2000)}`).join('\n')}`);
  const before = processes.map((service) => processCpuMs(service.child.pid as number));
  await sleep(SECONDS * 1000);
  const used = processes.map(
    (service, index) => processCpuMs(service.child.pid as number) - (before[index] ?? 0),
  );
  const share = (ms: number) => ((100 * ms) / (SECONDS * 1000)).toFixed(2);
  const total = used.reduce((sum, ms) => sum + ms, 0);
  const each = processes.map((service, index) => `${service.name} ${share(used[index] ?? 0)} %`);
  return `| ${label} | ${share(total)} % | ${each.join(', ')} |`;
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-idle-bench-'));
const rows: string[] = [];
const running: ServiceProcess[] = [];
process.stdout.write(`${context.header}\n`);
try {
  if (!args.includes('--no-embedded')) {
    const embedded = startServiceProcess('embedded', script('embedded'), {
      VOP_DATA_DIR: path.join(dataDir, 'embedded'),
      VOP_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    });
    running.push(embedded);
    rows.push(await measure('embedded', [embedded]));
    await embedded.stop();
    running.splice(0);
  }
  if (args.includes('--distributed')) {
    const brokers = process.env.VOP_TEST_KAFKA_BROKERS;
    if (!brokers)
      throw new Error('--distributed needs VOP_TEST_DATABASE_URL and VOP_TEST_KAFKA_BROKERS');
    const namespace = createTestNamespace('bench-idle', brokers);
    const services = ['gateway', 'matching', 'batch', 'analytics', 'webhook-dispatcher'];
    const databases = await Promise.all(
      services.map((service) => createTestDatabase(`bench_idle_${service.replace('-', '_')}`)),
    );
    const gatewayDb = databases[0] as { url: string };
    try {
      for (const [index, service] of services.entries())
        running.push(
          startServiceProcess(service, script(service), {
            KAFKA_BROKERS: brokers,
            VOP_KAFKA_NAMESPACE: namespace.name,
            VOP_DATA_DIR: dataDir,
            LOG_LEVEL: 'warn',
            DATABASE_URL: (databases[index] as { url: string }).url,
            VOP_KEYSTORE_DATABASE_URL: gatewayDb.url,
            VOP_INTERNAL_SECRET: 'i'.repeat(32),
            VOP_PORT: String(await freePort()),
          }),
        );
      rows.push(
        await measure('distributed (every service, PostgreSQL and Kafka not counted)', running),
      );
    } finally {
      for (const service of running.splice(0)) await service.stop();
      for (const database of databases) await database.drop();
      await namespace.drop();
    }
  }
} finally {
  for (const service of running.splice(0)) await service.stop();
  await rm(dataDir, { recursive: true, force: true });
}
process.stdout.write(
  [
    `\nIdle deployment: CPU over ${SECONDS} s, after ${SETTLE_SECONDS} s to settle (share of one core)`,
    '| deployment | total | each process |',
    '|---|---:|---|',
    ...rows,
    context.footer(),
    '',
  ].join('\n'),
);
