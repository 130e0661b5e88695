// Temporary profiling harness (H3), not part of the tree.
import { EventStore, createPostgresClient } from '@vop/event-store';
import { createTestDatabase } from '@vop/testing';
import { createPersonalData } from '../../packages/personal-data/dist/index.js';
import { migrateAccountProjection, projectAppendedAccounts } from '../../packages/verifications/dist/deciding/account-projection.js';
import { migrateAccountsReadModel } from '../../services/gateway/dist/accounts/read-model.js';
import { migrateAccountImports, startImport } from '../../services/gateway/dist/accounts/import/import-read-model.js';
import { runAccountImport } from '../../services/gateway/dist/accounts/import/import-run.js';
import { importRecords } from '../../services/gateway/dist/accounts/import/record-sources.js';
import { accountRecordLines } from '../dist/import-records.js';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';

const N = Number(process.argv[2] ?? 50000);
const db = await createTestDatabase('h3_harness');
const sql = createPostgresClient({ connectionString: db.url, max: 4 });
const store = new EventStore(sql, { schema: 'gateway' });
const personal = createPersonalData(sql);
await personal.keys.migrate(); await store.migrate();
await migrateAccountsReadModel(sql, 'gateway'); await migrateAccountImports(sql, 'gateway');
await migrateAccountProjection(sql, 'copy');
const stats = new Map();
const timed = (tx) => new Proxy(tx, { get(t, p) {
  if (p !== 'query') return typeof t[p] === 'function' ? t[p].bind(t) : t[p];
  return async (text, params) => { const s = performance.now(); try { return await t.query(text, params); } finally {
    const k = text.replace(/\s+/g, ' ').slice(0, 70); const e = stats.get(k) ?? [0, 0]; e[0]++; e[1] += performance.now() - s; stats.set(k, e); } };
}});
const origTx = sql.transaction.bind(sql);
sql.transaction = (fn) => origTx((tx) => fn(timed(tx)));
const copy = { apply: (tx, appended) => projectAppendedAccounts(tx, 'copy', appended), committed() {} };
async function run(label, readable) {
  stats.clear();
  const importId = randomUUID();
  await startImport(sql, 'gateway', { id: importId, format: 'ndjson', actor: 'h', startedAt: new Date().toISOString() });
  const s = performance.now(); const cpu = process.cpuUsage();
  const totals = await runAccountImport({ importId, store, copy, cipher: personal.cipher, clock: () => new Date(), newId: randomUUID, metadata: { importId }, chunkRows: Number(process.env.CHUNK ?? 1000) }, importRecords(readable, 'ndjson'));
  const ms = performance.now() - s; const c = process.cpuUsage(cpu);
  console.log(label, JSON.stringify(totals), Math.round(totals.read / ms * 1000), 'rows/s; node cpu ms', Math.round((c.user + c.system) / 1000), 'wall', Math.round(ms));
  for (const [k, [n, t]] of [...stats].sort((a, b) => b[1][1] - a[1][1]).slice(0, 12)) console.log('  ', String(Math.round(t)).padStart(6), 'ms', String(n).padStart(5), k);
}
function changed(from, to, every) {
  return Readable.from((async function* () { for await (const chunk of accountRecordLines(from, to)) {
    yield String(chunk).split('\n').map((line, i) => (line && i % every === 7 ? line.replace('Nilsson', 'Nilson').replace('Handel', 'Handle') : line)).join('\n'); } })());
}
await run('new', accountRecordLines(0, N));
if (!process.env.ONLY_NEW) await run('unchanged', accountRecordLines(0, N));
if (!process.env.ONLY_NEW) await run('1% changed', changed(0, N, 100));
const size = await sql.query(`select pg_size_pretty(pg_database_size(current_database())) s`);
console.log('db size', size.rows[0].s);
await sql.close(); await db.drop();
