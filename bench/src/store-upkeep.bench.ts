import { execFileSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPgliteClient } from '@vop/event-store';
import { tableDisk } from './disk-by-table.js';
import { pacedLoad } from './paced-load.js';
import { runContext } from './run-context.js';
import { SEEDED_ACCOUNTS, startSeededEmbedded } from './seeded-embedded.js';
import { storeUpkeepSoFar } from './store-upkeep-metrics.js';

/**
 * What the embedded store's disk does under steady single checks, and what its upkeep costs them
 * (services/embedded/src/store-upkeep.ts): the embedded service of --root (default this checkout; a
 * checkout from before the upkeep to compare) on a fresh folder, evenly paced checks at --rate for
 * --duration s, the webhook dispatcher's ends of verifications kept --retention s and pruned every
 * tenth of that (a day by default: the table that rows leave as fast as they come). Then the upkeep's
 * statements as /metrics counts them, and, the service stopped, that table's rows and room, the
 * largest tables' room and the folder's.
 */
const { values: flags } = parseArgs({
  options: {
    root: { type: 'string' },
    rate: { type: 'string', default: '200' },
    // Past the upkeep's first look (5 minutes) and its longest wait for a moment without checks (10
    // more): at an even rate none comes.
    duration: { type: 'string', default: '1200' },
    retention: { type: 'string', default: '30' },
  },
});
const root = flags.root ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const rate = Number(flags.rate);
const seconds = Number(flags.duration);
const retentionMs = Number(flags.retention) * 1000;
const context = runContext();
process.stdout.write(`${context.header}\n`);

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-store-upkeep-bench-'));
const { service, url, tls, body } = await startSeededEmbedded({
  root,
  dataDir,
  env: {
    // The retention must exceed the longest a second end can come after the first.
    VOP_DEFERRED_VERIFICATION_FAIL_AFTER_MS: String(Math.floor(retentionMs / 2)),
    VOP_WEBHOOK_ENDED_RETENTION_MS: String(retentionMs),
    VOP_WEBHOOK_PRUNE_INTERVAL_MS: String(Math.max(1000, Math.floor(retentionMs / 10))),
  },
});
const load = await pacedLoad({
  url: `${url}/vop/verify`,
  rate,
  seconds,
  tls,
  bodies: Array.from({ length: SEEDED_ACCOUNTS }, (_, index) => body(index)),
});

const upkeep = await storeUpkeepSoFar(url, tls);
await service.stop(60_000);

const sql = await createPgliteClient({ dataDir: path.join(dataDir, 'pglite') });
const { tables } = await tableDisk('embedded', sql);
const largest = tables.sort((a, b) => b.bytes - a.bytes).slice(0, 5);
const endedBytes = tables.find((table) => table.table === 'webhooks.ended_verifications')?.bytes;
const { rows: ended } = await sql.query<{ rows: string }>(
  'SELECT count(*)::text AS rows FROM webhooks.ended_verifications',
);
await sql.close();
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
const folder = Number(
  execFileSync('du', ['-sb', path.join(dataDir, 'pglite')], { encoding: 'utf8' }).split('\t')[0],
);

process.stdout.write(
  `root ${root}; ${rate} checks/s for ${seconds} s, ends kept ${retentionMs / 1000} s\n` +
    `| answered | p50 ms | p99 ms | max ms | upkeep: vacuums / analyses / checkpoints, s in all | ends kept: rows, MiB | folder MiB |\n` +
    `|---:|---:|---:|---:|---|---|---:|\n` +
    `| ${load.answered} of ${load.sent} | ${load.p50} | ${load.p99} | ${load.max} | ` +
    `${upkeep.vacuums} / ${upkeep.analyses} / ${upkeep.checkpoints}, ${upkeep.seconds.toFixed(2)} | ` +
    `${ended[0]?.rows}, ${mib(endedBytes ?? 0)} | ${mib(folder)} |\n` +
    `largest tables (MiB, with indexes): ${largest.map((table) => `${table.table} ${mib(table.bytes)}`).join(', ')}\n` +
    `${context.footer()}\n`,
);
