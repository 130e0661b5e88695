import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import { AccountImportResponse, MAX_IMPORT_RECORD_BYTES, parseAccountEvent } from '@vop/contracts';
import { EventStore, type SqlClient } from '@vop/event-store';
import {
  ACCOUNT_FINGERPRINT_SUBJECT,
  accountEventProtector,
  accountSubject,
  createPersonalData,
  type PersonalData,
} from '@vop/personal-data';
import { PriorityGate } from '@vop/messaging';
import { createLogger } from '@vop/observability';
import type { Principal } from '@vop/http';
import { eventually, germanIban, interceptTransactions } from '@vop/testing';
import { AuditLog } from '../../audit/audit-log.js';
import { appAs } from '../../spec/in-process-edge.js';
import { handleAccountCommand } from '../command-handler.js';
import { findLiveAccountIdByIban, migrateAccountsReadModel } from '../read-model.js';
import { migrateAccountImports, startImport } from './import-read-model.js';
import { accountImportRoutes, IMPORT_PATH } from './import-routes.js';
import { type ImportRunOptions, runAccountImport } from './import-run.js';
import { canonicalRecord, parseImportRecord } from './import-record.js';
import { prepareImportChunk, writePreparedChunk } from './import-chunk.js';
import { eraseAccountHolder } from '../erasure.js';
import type { SourceRecord } from './record-sources.js';

const SCHEMA = 'gateway';
const admin: Principal = {
  kind: 'certificate',
  participantId: 'BANK-ADMIN',
  fingerprint: 'ad'.repeat(32),
  admin: true,
};

const ndjson = (...records: unknown[]) =>
  records
    .map((record) => (typeof record === 'string' ? record : JSON.stringify(record)))
    .join('\n');

/** One HTTP spec of the bulk import, on PGlite and on PostgreSQL (small chunks: rows cross them). */
export function accountImportSpec(
  name: string,
  setup: () => Promise<{ sql: SqlClient; close: () => Promise<void> }>,
) {
  describe(`bulk account import (${name})`, { timeout: 120_000 }, () => {
    let sql: SqlClient;
    let close: () => Promise<void>;
    let store: EventStore;
    let personal: PersonalData;
    let audit: AuditLog;
    let server: Server;
    let base: string;

    before(async () => {
      ({ sql, close } = await setup());
      store = new EventStore(sql, { schema: SCHEMA });
      personal = createPersonalData(sql);
      audit = new AuditLog(sql, SCHEMA);
      await personal.keys.migrate();
      await store.migrate();
      await audit.migrate();
      await migrateAccountsReadModel(sql, SCHEMA);
      await migrateAccountImports(sql, SCHEMA);
      const routes = accountImportRoutes({
        store,
        cipher: personal.cipher,
        audit,
        logger: createLogger({ service: 'spec', level: 'silent' }),
        clock: () => new Date(),
        chunkRows: 3,
      });
      server = createServer(appAs(admin, [routes]));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    after(async () => {
      await new Promise((resolve) => server.close(resolve));
      await close();
    });

    async function upload(body: string | Buffer, contentType = 'application/x-ndjson', query = '') {
      const response = await fetch(`${base}${IMPORT_PATH}${query}`, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
    }

    const imported = async (body: string, contentType?: string) => {
      const response = await upload(body, contentType);
      assert.equal(response.status, 201, response.text);
      return AccountImportResponse.parse(response.body);
    };

    async function eventsOf(iban: string) {
      const accountId = await findLiveAccountIdByIban(sql, SCHEMA, iban);
      assert.ok(accountId, 'the account is live');
      const stored = await store.readStream(`account-${accountId}`);
      return stored.map((event) => parseAccountEvent(event.type, event.data));
    }

    /** The account of `iban` was opened, then updated once, to `name`. */
    async function assertOpenedThenUpdated(iban: string, name: string) {
      const events = await eventsOf(iban);
      assert.deepEqual(
        events.map((event) => event.type),
        ['AccountOpened', 'AccountUpdated'],
      );
      const last = events.at(-1);
      assert.ok(last?.type === 'AccountUpdated');
      assert.equal(await personal.cipher.decrypt(last.data.name), name);
    }

    const messageCount = async () =>
      Number(
        (await sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${SCHEMA}.messages`))
          .rows[0]?.n,
      );

    it('given new IBANs in NDJSON, when imported, then each account is opened as through the API, names encrypted', async () => {
      const ibans = [1, 2, 3, 4, 5, 6, 7].map((n) => germanIban(710_000 + n));
      const summary = await imported(
        ndjson(...ibans.map((iban, index) => ({ iban, name: `Holder Number${index}` }))),
      );
      assert.equal(summary.status, 'COMPLETED');
      assert.deepEqual(summary.rows, { read: 7, created: 7, updated: 0, unchanged: 0, failed: 0 });
      assert.equal(summary.statusUrl, `${IMPORT_PATH}/${summary.importId}`);
      const events = await eventsOf(ibans[6] as string);
      assert.deepEqual(
        events.map((event) => event.type),
        ['AccountOpened'],
      );
      const opened = events[0];
      assert.ok(opened?.type === 'AccountOpened');
      assert.match(opened.data.name, /^pd1:/);
      assert.equal(opened.data.status, 'active');
      assert.equal(await personal.cipher.decrypt(opened.data.name), 'Holder Number6');
    });

    it('given the same file again, then every row is unchanged and nothing is written', async () => {
      const file = ndjson(
        {
          iban: germanIban(720_001),
          name: 'Anna Again',
          alternateNames: ['Ben Again'],
          status: 'blocked',
        },
        {
          iban: germanIban(720_002),
          name: 'Acme Again GmbH',
          holderType: 'organisation',
          identifiers: { lei: '5299009N55YRQC69CN18' },
        },
      );
      const first = await imported(file);
      assert.equal(first.rows.created, 2);
      const before = await messageCount();
      const again = await holderKeysRead(() => imported(file));
      assert.deepEqual(again.result.rows, {
        read: 2,
        created: 0,
        updated: 0,
        unchanged: 2,
        failed: 0,
      });
      assert.equal(await messageCount(), before);
      assert.notEqual(again.result.importId, first.importId);
      // Told by the deployment's fingerprint alone: no holder's key is read.
      assert.equal(again.subjects, 0);
    });

    /** What `work` returns, and how many holders' keys the import asked the key store for. */
    async function holderKeysRead<T>(
      work: () => Promise<T>,
    ): Promise<{ result: T; subjects: number }> {
      const { keys } = personal;
      const [keysFor, keysAhead] = [keys.keysFor.bind(keys), keys.keysAhead.bind(keys)];
      let subjects = 0;
      const count = (ids: Iterable<string>) =>
        (subjects += [...ids].filter((id) => id.startsWith(accountSubject(''))).length);
      keys.keysFor = (ids, ...rest) => (count(ids), keysFor(ids, ...rest));
      keys.keysAhead = (ids, ...rest) => (count(ids), keysAhead(ids, ...rest));
      try {
        return { result: await work(), subjects };
      } finally {
        Object.assign(keys, { keysFor, keysAhead });
      }
    }

    const fingerprintOf = async (iban: string) =>
      (
        await sql.query<{ fp: string | null }>(
          `SELECT import_fingerprint AS fp FROM ${SCHEMA}.accounts WHERE iban = $1 AND deleted_at IS NULL`,
          [iban],
        )
      ).rows[0]?.fp;

    it("given fingerprints under the holders' keys (written before the deployment's key), then the same records are unchanged and their fingerprints move to the deployment's key", async () => {
      const ibans = [1, 2, 3].map((n) => germanIban(721_000 + n));
      const records = ibans.map((iban, index) => ({ iban, name: `Older Holder${index}` }));
      await imported(ndjson(...records));
      // Each row's fingerprint as an earlier release wrote it: the record's digest under the holder's
      // key, with the NDJSON line's for the first two and without it for the third (a CSV import).
      for (const [index, record] of records.entries()) {
        const accountId = (await findLiveAccountIdByIban(sql, SCHEMA, record.iban)) as string;
        const subject = accountSubject(accountId);
        const sealer = await personal.cipher.sealerFor([subject]);
        const parsed = parseImportRecord(record);
        assert.ok(parsed.ok);
        const recordDigest = sealer.digest(subject, canonicalRecord(parsed.record));
        const lineDigest = sealer.digest(subject, `ndjson-line\n${JSON.stringify(record)}`);
        await sql.query(`UPDATE ${SCHEMA}.accounts SET import_fingerprint = $2 WHERE id = $1`, [
          accountId,
          index < 2 ? `${recordDigest}.${lineDigest}` : recordDigest,
        ]);
      }
      const before = await messageCount();
      const changed = { ...records[1], name: 'Older Holder1 Jr' };
      const migrating = await holderKeysRead(() =>
        imported(ndjson(records[0], changed, records[2])),
      );
      assert.deepEqual(migrating.result.rows, {
        read: 3,
        created: 0,
        updated: 1,
        unchanged: 2,
        failed: 0,
      });
      assert.equal(migrating.subjects, 3);
      assert.equal(await messageCount(), before + 1);
      for (const iban of ibans)
        assert.match(String(await fingerprintOf(iban)), /^d1:[^.]+\.[^.]+$/);

      const next = await holderKeysRead(() => imported(ndjson(records[0], changed, records[2])));
      assert.deepEqual(next.result.rows, {
        read: 3,
        created: 0,
        updated: 0,
        unchanged: 3,
        failed: 0,
      });
      assert.equal(next.subjects, 0);
      assert.equal(await messageCount(), before + 1);
    });

    it("given an erasure between an import's reading and its writing, then no fingerprint is written to the erased holder's row", async () => {
      const [kept, changed] = [1, 2].map((n) => germanIban(722_000 + n)) as [string, string];
      // As CSV: the nightly NDJSON line of the same record then adds the line's digest (a rewrite).
      await imported(`iban,name\n${kept},Kept Holder\n${changed},Changed Holder\n`, 'text/csv');
      const ids = await Promise.all(
        [kept, changed].map(
          async (iban) => (await findLiveAccountIdByIban(sql, SCHEMA, iban)) as string,
        ),
      );
      const line = (iban: string, name: string) => {
        const text = JSON.stringify({ iban, name });
        const validate = () => parseImportRecord(JSON.parse(text));
        return { row: 1, iban, line: { text, validate } };
      };
      const writer = {
        store,
        cipher: personal.cipher,
        fingerprintDigest: await personal.cipher.digesterFor(ACCOUNT_FINGERPRINT_SUBJECT),
        metadata: {},
        now: new Date().toISOString(),
        newId: randomUUID,
      };
      const prepared = await prepareImportChunk(
        writer,
        [line(kept, 'Kept Holder'), line(changed, 'Changed Holder Jr')],
        sql,
      );
      assert.deepEqual(prepared.counts, { created: 0, updated: 1, unchanged: 1 });
      await sql.transaction(async (tx) => {
        for (const accountId of ids) await eraseAccountHolder(tx, personal.keys, SCHEMA, accountId);
      });
      await sql.transaction((tx) => writePreparedChunk(writer, prepared, tx));
      assert.equal(await fingerprintOf(kept), null);
      assert.equal(await fingerprintOf(changed), null);
    });

    it('given a changed record, then the account is updated with the whole record; an API write in between makes the next import write again', async () => {
      const iban = germanIban(730_001);
      await imported(ndjson({ iban, name: 'Carla Change', alternateNames: ['Dora Change'] }));
      const changed = await imported(ndjson({ iban, name: 'Carla Changed', status: 'closed' }));
      assert.deepEqual(changed.rows, { read: 1, created: 0, updated: 1, unchanged: 0, failed: 0 });
      const events = await eventsOf(iban);
      const last = events.at(-1);
      assert.ok(last?.type === 'AccountUpdated');
      assert.equal(last.data.status, 'closed');
      assert.deepEqual(last.data.alternateNames, []);
      assert.equal(await personal.cipher.decrypt(last.data.name), 'Carla Changed');

      const accountId = (await findLiveAccountIdByIban(sql, SCHEMA, iban)) as string;
      await handleAccountCommand(
        store,
        {
          type: 'UpdateAccount',
          accountId,
          changes: { status: 'active' },
          now: new Date().toISOString(),
        },
        {},
        {},
        accountEventProtector(personal.cipher),
      );
      const after = await imported(ndjson({ iban, name: 'Carla Changed', status: 'closed' }));
      assert.equal(after.rows.updated, 1);
      assert.equal((await eventsOf(iban)).length, 4);
    });

    /** NDJSON lines as the source yields them (not yet validated), counting their validations. */
    async function runLines(lines: string[], firstRow = 1, newId: () => string = randomUUID) {
      const importId = randomUUID();
      const startedAt = new Date().toISOString();
      await startImport(sql, SCHEMA, { id: importId, format: 'ndjson', actor: 'spec', startedAt });
      let validations = 0;
      async function* records(): AsyncGenerator<SourceRecord[]> {
        for (const [index, text] of lines.entries()) {
          const raw = JSON.parse(text) as { iban: string };
          yield [
            {
              row: firstRow + index,
              ok: 'unvalidated',
              iban: raw.iban,
              text,
              validate: () => {
                validations += 1;
                return parseImportRecord(raw);
              },
            },
          ];
        }
      }
      const options = { importId, store, cipher: personal.cipher, metadata: {}, chunkRows: 2 };
      const rows = await runAccountImport(
        { ...options, clock: () => new Date(), newId },
        records(),
      );
      return { rows, validations };
    }

    it('given a new holder whose id was given a key by another writer first, then the chunk goes row by row and every name is sealed under a key that is stored', async () => {
      const taken = randomUUID();
      // Another process's key store, so the import's has not seen the key.
      const takenKey = await createPersonalData(sql).keys.keyFor(accountSubject(taken));
      // The first id the import makes is one another writer already gave a key.
      const ids = [taken];
      const lines = [1, 2].map((n) =>
        JSON.stringify({ iban: germanIban(739_200 + n), name: `Raced Holder${n}` }),
      );
      const { rows } = await runLines(lines, 1, () => ids.shift() ?? randomUUID());
      assert.deepEqual(rows, { read: 2, created: 2, updated: 0, unchanged: 0, failed: 0 });
      for (const [index, text] of lines.entries()) {
        const { iban } = JSON.parse(text) as { iban: string };
        const opened = (await eventsOf(iban))[0];
        assert.ok(opened?.type === 'AccountOpened');
        assert.notEqual(opened.data.accountId, taken);
        assert.equal(await personal.cipher.decrypt(opened.data.name), `Raced Holder${index + 1}`);
      }
      assert.deepEqual(await personal.keys.keyFor(accountSubject(taken)), takenKey);
    });

    it('given the same NDJSON lines again, then they are unchanged without being validated again; a changed line is validated and written', async () => {
      const line = (n: number, name = `Line Holder${n}`) =>
        JSON.stringify({ iban: germanIban(739_000 + n), name });
      const first = await runLines([line(1), line(2), line(3)]);
      assert.deepEqual(first.rows, { read: 3, created: 3, updated: 0, unchanged: 0, failed: 0 });
      assert.equal(first.validations, 3);
      const before = await messageCount();

      const again = await runLines([
        line(1),
        line(2, 'Line Holder2 Jr'),
        line(3),
        '{"iban":"DE00"}',
      ]);
      assert.deepEqual(again.rows, { read: 4, created: 0, updated: 1, unchanged: 2, failed: 1 });
      // The changed line and the new, invalid one: never the two lines imported before.
      assert.equal(again.validations, 2);
      assert.equal(await messageCount(), before + 1);
    });

    it('given a record imported as CSV, when the same record comes as an NDJSON line, then it is unchanged and the line is recognised from then on', async () => {
      const iban = germanIban(739_101);
      await imported(`iban,name\n${iban},Csv Holder\n`, 'text/csv');
      const before = await messageCount();
      const text = JSON.stringify({ iban, name: 'Csv Holder' });
      const once = await runLines([text]);
      assert.deepEqual(once.rows, { read: 1, created: 0, updated: 0, unchanged: 1, failed: 0 });
      assert.equal(once.validations, 1);
      const twice = await runLines([text]);
      assert.deepEqual(twice.rows, { read: 1, created: 0, updated: 0, unchanged: 1, failed: 0 });
      assert.equal(twice.validations, 0);
      assert.equal(await messageCount(), before);
    });

    it('given the nightly file with one record in four changed, then only that one is appended, and no name is decrypted to tell', async () => {
      const ibans = [1, 2, 3, 4].map((n) => germanIban(735_000 + n));
      const record = (iban: string, index: number, suffix = '') => ({
        iban,
        name: `Nightly Holder${index}${suffix}`,
        ...(index === 2 && { identifiers: { others: [{ scheme: 'HRB', id: '4711' }] } }),
      });
      await imported(ndjson(...ibans.map((iban, index) => record(iban, index))));
      const before = await messageCount();
      const decryptMany = personal.cipher.decryptMany.bind(personal.cipher);
      let decrypted = 0;
      personal.cipher.decryptMany = (values, ...rest) => {
        decrypted += values.length;
        return decryptMany(values, ...rest);
      };
      try {
        const nightly = await imported(
          ndjson(...ibans.map((iban, index) => record(iban, index, index === 2 ? ' Jr' : ''))),
        );
        assert.deepEqual(nightly.rows, {
          read: 4,
          created: 0,
          updated: 1,
          unchanged: 3,
          failed: 0,
        });
      } finally {
        personal.cipher.decryptMany = decryptMany;
      }
      assert.equal(decrypted, 0);
      assert.equal(await messageCount(), before + 1);
      const changed = (await eventsOf(ibans[2] as string)).at(-1);
      assert.ok(changed?.type === 'AccountUpdated');
      assert.equal(await personal.cipher.decrypt(changed.data.name), 'Nightly Holder2 Jr');
      assert.equal((await eventsOf(ibans[1] as string)).length, 1);
    });

    it("given an erased holder's record in the same file again, then that row is ERASED, nothing is appended for it, and the rest are unchanged", async () => {
      const ibans = [1, 2].map((n) => germanIban(736_000 + n));
      const file = ndjson(...ibans.map((iban, index) => ({ iban, name: `Erased Holder${index}` })));
      await imported(file);
      const erasedId = (await findLiveAccountIdByIban(sql, SCHEMA, ibans[0] as string)) as string;
      await sql.transaction((tx) => eraseAccountHolder(tx, personal.keys, SCHEMA, erasedId));
      const before = await messageCount();
      const again = await imported(file);
      assert.deepEqual(again.rows, { read: 2, created: 0, updated: 0, unchanged: 1, failed: 1 });
      assert.deepEqual(again.errors, [{ row: 1, field: 'iban', code: 'ERASED' }]);
      assert.equal(await messageCount(), before);
    });

    /**
     * `count` new records (a hundred), one a batch, run with `options`: the totals and each chunk's rows.
     * With `afterFirstChunk`, the record of that row is read only once a chunk was written, after `run`.
     */
    async function chunkedImport(
      firstIban: number,
      options: Pick<
        ImportRunOptions,
        'chunkRows' | 'chunkMs' | 'maxChunkRows' | 'pacer' | 'checksChunkMs' | 'overlap'
      >,
      {
        count = 100,
        afterFirstChunk,
      }: { count?: number; afterFirstChunk?: { row: number; run: () => void } } = {},
    ) {
      const importId = randomUUID();
      const startedAt = new Date().toISOString();
      await startImport(sql, SCHEMA, { id: importId, format: 'ndjson', actor: 'spec', startedAt });
      let chunkWritten = (): void => undefined;
      const firstChunkWritten = new Promise<void>((resolve) => (chunkWritten = resolve));
      async function* records(): AsyncGenerator<SourceRecord[]> {
        for (let row = 1; row <= count; row++) {
          if (row === afterFirstChunk?.row) {
            await firstChunkWritten;
            afterFirstChunk.run();
          }
          yield [
            {
              row,
              ok: true,
              record: { iban: germanIban(firstIban + row), name: `Chunked ${row}` },
            },
          ];
        }
      }
      const chunks: number[] = [];
      let readBefore = 0;
      const totals = await runAccountImport(
        {
          importId,
          store,
          cipher: personal.cipher,
          clock: () => new Date(),
          newId: randomUUID,
          metadata: {},
          ...options,
          onProgress: (rows) => {
            chunks.push(rows.read - readBefore);
            readBefore = rows.read;
            chunkWritten();
          },
        },
        records(),
      );
      return { totals, chunks };
    }

    it("given an upload that fails while the chunk read before it cannot be written, then the import fails for the upload's reason", async () => {
      const importId = randomUUID();
      await startImport(sql, SCHEMA, {
        id: importId,
        format: 'ndjson',
        actor: 'spec',
        startedAt: new Date().toISOString(),
      });
      // The database refuses every transaction from the moment the upload fails.
      let refusing = false;
      const refusingSql = interceptTransactions(sql, () => {
        if (refusing) throw new Error('the database refused');
      });
      async function* records(): AsyncGenerator<SourceRecord[]> {
        yield [1, 2].map((row) => ({
          row,
          ok: true as const,
          record: { iban: germanIban(743_000 + row), name: `Refused ${row}` },
        }));
        refusing = true;
        throw new Error('the upload was cut off');
      }

      await assert.rejects(
        runAccountImport(
          {
            importId,
            store: new EventStore(refusingSql, { schema: SCHEMA }),
            cipher: personal.cipher,
            clock: () => new Date(),
            newId: randomUUID,
            metadata: {},
            chunkRows: 2,
            overlap: name === 'PostgreSQL',
          },
          records(),
        ),
        /the upload was cut off/,
      );
      assert.equal(await findLiveAccountIdByIban(sql, SCHEMA, germanIban(743_001)), undefined);
    });

    it('given chunks that take less than chunkMs, then each next chunk grows up to maxChunkRows', async () => {
      const { totals, chunks } = await chunkedImport(737_000, {
        chunkRows: 2,
        // Far longer than any chunk here takes: every chunk is "fast".
        chunkMs: 600_000,
        maxChunkRows: 50,
      });
      assert.equal(totals.created, 100);
      // The chunks read before the first is written are still of the first's size: without overlap
      // (the look-ahead) two of them, the one looked up while the first is written and the one after.
      assert.equal(Math.max(...chunks), 50);
      assert.ok(chunks.length <= 5, `chunks of ${chunks.join(', ')} rows`);
    });

    it('given single checks coming, then each chunk is of the least rows and the pacer rests after each', async () => {
      const restedAfter: number[] = [];
      const { totals, chunks } = await chunkedImport(741_000, {
        chunkRows: 50,
        // Without checks every chunk would be "fast" and stay at 50 rows.
        chunkMs: 600_000,
        maxChunkRows: 50,
        pacer: {
          checksActive: () => true,
          restAfter: (took) => {
            restedAfter.push(took);
            return 0;
          },
        },
        // No chunk fits in no time: each is of the least rows beside checks.
        checksChunkMs: 0,
      });
      assert.equal(totals.created, 100);
      // The first chunk too: it is cut at the least rows, not at chunkRows.
      assert.deepEqual(chunks, Array<number>(10).fill(10));
      assert.equal(restedAfter.length, chunks.length);
      assert.ok(restedAfter.every((took) => took > 0));
    });

    it('given single checks that start after a chunk of the quiet size, then the next chunk is cut at the least rows', async () => {
      let checksCome = false;
      const { totals, chunks } = await chunkedImport(
        745_000,
        {
          chunkRows: 50,
          // Every chunk is "fast": without checks each stays at 50 rows.
          chunkMs: 600_000,
          maxChunkRows: 50,
          overlap: name === 'PostgreSQL',
          pacer: { checksActive: () => checksCome, restAfter: () => 0 },
          checksChunkMs: 0,
        },
        // The first chunk is written (and the next one sized) before any check comes.
        { count: 150, afterFirstChunk: { row: 51, run: () => (checksCome = true) } },
      );
      assert.equal(totals.created, 150);
      // Cut at the quiet size, the second chunk would be of 50 rows, written before any chunk beside
      // the checks had sized the next.
      assert.deepEqual(chunks, [50, ...Array<number>(10).fill(10)]);
    });

    it('given a single check in flight, then no chunk is written until it ends (the import yields to it)', async () => {
      const importId = randomUUID();
      await startImport(sql, SCHEMA, {
        id: importId,
        format: 'ndjson',
        actor: 'spec',
        startedAt: '2026-01-01T00:00:00Z',
      });
      const gate = new PriorityGate({ maxWaitMs: 600_000 });
      let endCheck!: () => void;
      const check = gate.high(() => new Promise<void>((resolve) => (endCheck = resolve)));
      async function* records(): AsyncGenerator<SourceRecord[]> {
        for (let row = 1; row <= 4; row++)
          yield [
            { row, ok: true, record: { iban: germanIban(738_000 + row), name: `Yield ${row}` } },
          ];
      }
      let committed = 0;
      const importing = runAccountImport(
        {
          importId,
          store,
          cipher: personal.cipher,
          clock: () => new Date(),
          newId: randomUUID,
          metadata: {},
          chunkRows: 2,
          gate,
          onProgress: () => (committed += 1),
        },
        records(),
      );
      // Long enough for the chunk's statements, had it not waited for the check.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(committed, 0);
      endCheck();
      await check;
      assert.equal((await importing).created, 4);
      assert.equal(committed, 2);
    });

    it('given bad rows among good ones, then each is reported by row number and field, never by value, and the rest are applied', async () => {
      const secret = 'Zacharias Geheimname';
      const good = germanIban(740_001);
      const response = await upload(
        ndjson(
          { iban: good, name: 'Good Before' },
          'not json {',
          { iban: 'DE00 1234', name: secret },
          { iban: germanIban(740_002) },
          '',
          { iban: germanIban(740_003), name: secret, nickname: 'x' },
          ['an', 'array'],
          { iban: germanIban(740_004), name: secret, holderType: 'robot' },
          { iban: germanIban(740_005), name: 'Good After' },
        ),
      );
      assert.equal(response.status, 201, response.text);
      const summary = AccountImportResponse.parse(response.body);
      assert.deepEqual(summary.rows, { read: 8, created: 2, updated: 0, unchanged: 0, failed: 6 });
      assert.deepEqual(summary.errors, [
        { row: 2, field: 'row', code: 'NOT_JSON' },
        { row: 3, field: 'iban', code: 'INVALID_IBAN' },
        { row: 4, field: 'name', code: 'MISSING_FIELD' },
        { row: 5, field: 'nickname', code: 'UNKNOWN_FIELD' },
        { row: 6, field: 'row', code: 'NOT_A_RECORD' },
        { row: 7, field: 'holderType', code: 'INVALID_FIELD' },
      ]);
      assert.equal(response.text.includes(secret), false);
      assert.ok(await findLiveAccountIdByIban(sql, SCHEMA, germanIban(740_005)));
      const status = await fetch(`${base}${summary.statusUrl}`).then((r) => r.json());
      assert.deepEqual(AccountImportResponse.parse(status), summary);
    });

    it('given CSV with the documented columns, then alternate names and identifiers are read from |-separated cells', async () => {
      const iban = germanIban(750_001);
      const csv = [
        'iban,name,holderType,alternateNames,identifiers,status',
        `${iban},"Muster & Sohn GmbH",organisation,"Muster KG|Sohn Handel",LEI:5299009N55YRQC69CN18|VAT:DE123456789,`,
        `${germanIban(750_002)},Erika Csv,,,,blocked`,
        `${germanIban(750_003)},Too,Many,Cells,Here,active,extra`,
        `${germanIban(750_004)},Bad Ids,,,LEI,`,
      ].join('\r\n');
      const summary = await imported(csv, 'text/csv');
      assert.deepEqual(summary.rows, { read: 4, created: 2, updated: 0, unchanged: 0, failed: 2 });
      assert.deepEqual(summary.errors, [
        { row: 3, field: 'row', code: 'NOT_A_RECORD' },
        { row: 4, field: 'identifiers', code: 'INVALID_FIELD' },
      ]);
      const opened = (await eventsOf(iban))[0];
      assert.ok(opened?.type === 'AccountOpened');
      assert.equal(opened.data.holderType, 'organisation');
      assert.deepEqual(opened.data.identifiers, {
        lei: '5299009N55YRQC69CN18',
        others: [{ scheme: 'VAT', id: 'DE123456789' }],
      });
      const names = await personal.cipher.decryptMany(opened.data.alternateNames);
      assert.deepEqual(names, ['Muster KG', 'Sohn Handel']);
      const second = (await eventsOf(germanIban(750_002)))[0];
      assert.ok(second?.type === 'AccountOpened');
      assert.equal(second.data.status, 'blocked');
    });

    it('given one IBAN twice in a file, then the rows apply in order: the later one wins', async () => {
      const iban = germanIban(760_001);
      const summary = await imported(
        ndjson({ iban, name: 'First Version' }, { iban, name: 'Second Version' }),
      );
      assert.deepEqual(summary.rows, { read: 2, created: 1, updated: 1, unchanged: 0, failed: 0 });
      const last = (await eventsOf(iban)).at(-1);
      assert.ok(last?.type === 'AccountUpdated');
      assert.equal(await personal.cipher.decrypt(last.data.name), 'Second Version');
    });

    it('given one IBAN in two consecutive chunks, then the later chunk updates the account the earlier one opened', async () => {
      const [iban, ...others] = [760_101, 760_102, 760_103, 760_104, 760_105].map((n) =>
        germanIban(n),
      );
      const [b, c, d, e] = others as [string, string, string, string];
      const summary = await imported(
        ndjson(
          { iban, name: 'Early Version' },
          { iban: b, name: 'Bea Brandt' },
          { iban: c, name: 'Carl Carstens' },
          { iban, name: 'Late Version' },
          { iban: d, name: 'Dora Dietz' },
          { iban: e, name: 'Emil Engel' },
        ),
      );
      assert.deepEqual(summary.rows, { read: 6, created: 5, updated: 1, unchanged: 0, failed: 0 });
      await assertOpenedThenUpdated(iban as string, 'Late Version');
    });

    it('given one IBAN in a chunk and again two chunks later, then the later chunk updates the account the earlier one opened', async () => {
      // Three rows a chunk: the third chunk is looked up while the first may still be being written.
      const [iban, ...others] = [760_201, 760_202, 760_203, 760_204, 760_205, 760_206, 760_207].map(
        (n) => germanIban(n),
      );
      const names = [
        'Bea Brandt',
        'Carl Carstens',
        'Dora Dietz',
        'Emil Engel',
        'Fritz Falk',
        'Gus Graf',
      ];
      const [b, c, d, e, f, g] = others.map((other, index) => ({
        iban: other,
        name: names[index],
      }));
      const summary = await imported(
        ndjson({ iban, name: 'Early Version' }, b, c, d, e, f, { iban, name: 'Late Version' }, g),
      );
      assert.deepEqual(summary.rows, { read: 8, created: 7, updated: 1, unchanged: 0, failed: 0 });
      await assertOpenedThenUpdated(iban as string, 'Late Version');
    });

    it('given a CSV header with an unknown column, then the import fails with 400 and its status says why', async () => {
      const response = await upload('iban,fullname\nDE89370400440532013000,X\n', 'text/csv');
      assert.equal(response.status, 400);
      assert.equal(response.body.error, 'INVALID_IMPORT');
      const location = response.headers.get('location') as string;
      const status = AccountImportResponse.parse(
        await fetch(`${base}${location}`).then((r) => r.json()),
      );
      assert.equal(status.status, 'FAILED');
      assert.match(status.failure ?? '', /unknown column "fullname"/);
    });

    it('refuses a JSON body (415), an unknown import (404) and an import id used before (409), in the flat format', async () => {
      const json = await upload('{"iban":"x"}', 'application/json');
      assert.equal(json.status, 415);
      assert.equal(json.body.error, 'UNSUPPORTED_MEDIA_TYPE');
      const unknown = await fetch(`${base}${IMPORT_PATH}/${randomUUID()}`);
      assert.equal(unknown.status, 404);
      assert.equal(((await unknown.json()) as { error: string }).error, 'IMPORT_NOT_FOUND');
      const importId = randomUUID();
      const row = ndjson({ iban: germanIban(770_001), name: 'Named Import' });
      assert.equal((await upload(row, undefined, `?importId=${importId}`)).status, 201);
      const again = await upload(row, undefined, `?importId=${importId}`);
      assert.equal(again.status, 409);
      assert.equal(again.body.error, 'IMPORT_EXISTS');
    });

    it('given an upload cut off midway, then the chunks before stay applied and the import is FAILED', async () => {
      const importId = randomUUID();
      const first = ndjson(
        ...[1, 2, 3, 4, 5, 6].map((n) => ({
          iban: germanIban(790_000 + n),
          name: `Cut Holder${n}`,
        })),
      );
      const req = request(`${base}${IMPORT_PATH}?importId=${importId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', 'content-length': '1000000' },
      });
      req.on('error', () => undefined);
      req.write(`${first}\n`);
      const statusOf = async () => {
        const response = await fetch(`${base}${IMPORT_PATH}/${importId}`);
        return response.status === 200
          ? AccountImportResponse.parse(await response.json())
          : undefined;
      };
      await eventually(async () => ((await statusOf())?.rows.read === 6 ? true : undefined), {
        what: 'the first two chunks',
      });
      req.destroy();
      const failed = await eventually(
        async () => {
          const status = await statusOf();
          return status?.status === 'FAILED' ? status : undefined;
        },
        { what: 'the import marked FAILED' },
      );
      assert.equal(failed.failure, 'the upload was cut off');
      assert.equal(failed.rows.created, 6);
      assert.ok(await findLiveAccountIdByIban(sql, SCHEMA, germanIban(790_006)));
    });

    describe('a line or record longer than a record may be', () => {
      const TWENTY_MB = 20 * 1024 * 1024;
      const stopped = async (body: string, line: number, contentType?: string) => {
        const response = await upload(body, contentType);
        assert.equal(response.status, 400, response.text);
        assert.equal(response.body.error, 'INVALID_IMPORT');
        const reason = `the record on line ${line} is longer than a record may be (${MAX_IMPORT_RECORD_BYTES} bytes)`;
        assert.equal(response.body.message, `The import stopped: ${reason}`);
        const status = AccountImportResponse.parse(
          await fetch(`${base}${response.headers.get('location') as string}`).then((r) => r.json()),
        );
        assert.equal(status.status, 'FAILED');
        assert.equal(status.failure, reason);
      };

      it('given a 20 MB NDJSON line after two records and a blank line, then the import stops naming line 4', () =>
        stopped(
          [
            JSON.stringify({ iban: germanIban(795_001), name: 'Before Long' }),
            JSON.stringify({ iban: germanIban(795_002), name: 'Before Long' }),
            '',
            `{"iban":"${germanIban(795_003)}","name":"${'A'.repeat(TWENTY_MB)}"}`,
          ].join('\n'),
          4,
        ));

      it('given 20 MB with no line feed at all, then the import stops naming line 1', () =>
        stopped(`{"iban":"${'1'.repeat(TWENTY_MB)}`, 1));

      it('given a CSV record of 20 MB, or of 20 MB of separators, then the import stops naming its line', async () => {
        await stopped(
          `iban,name\n${germanIban(795_004)},"${'A\n'.repeat(TWENTY_MB / 2)}"\n`,
          2,
          'text/csv',
        );
        await stopped(`iban,name\n${','.repeat(TWENTY_MB)}`, 2, 'text/csv');
      });

      it('given a record of exactly the bound (padded with spaces), then it is imported', async () => {
        const record = JSON.stringify({ iban: germanIban(795_005), name: 'Padded Holder' });
        const padded = `${record.slice(0, -1)}${' '.repeat(MAX_IMPORT_RECORD_BYTES - record.length)}}`;
        assert.equal(Buffer.byteLength(padded), MAX_IMPORT_RECORD_BYTES);
        const summary = await imported(`${padded}\n`);
        assert.deepEqual(summary.rows, {
          read: 1,
          created: 1,
          updated: 0,
          unchanged: 0,
          failed: 0,
        });
      });
    });

    it('given control or invalid characters in any field (a lone surrogate as a JSON escape or as bytes), then that row is refused naming the field', async () => {
      const loneSurrogateBytes = Buffer.from([0xed, 0xa0, 0x80]);
      const row = (n: number, fields: string) =>
        `{"iban":"${germanIban(796_000 + n)}","name":"Holder${n}"${fields}}\n`;
      const body = Buffer.concat([
        Buffer.from(row(1, '')),
        Buffer.from(`{"iban":"${germanIban(796_002)}","name":"Eri\\ud800ka"}\n`),
        Buffer.from(`{"iban":"${germanIban(796_003)}","name":"Eri`),
        loneSurrogateBytes,
        Buffer.from('ka"}\n'),
        Buffer.from(row(4, ',"alternateNames":["Ok Name","Bad\\udc00"]')),
        Buffer.from(row(5, ',"identifiers":{"others":[{"scheme":"HRB","id":"1\\u0007"}]}')),
        Buffer.from(row(6, ',"x\\ud800":"y"')),
      ]);
      const summary = AccountImportResponse.parse((await upload(body)).body);
      assert.deepEqual(summary.rows, { read: 6, created: 1, updated: 0, unchanged: 0, failed: 5 });
      assert.deepEqual(summary.errors, [
        { row: 2, field: 'name', code: 'INVALID_FIELD' },
        { row: 3, field: 'name', code: 'INVALID_FIELD' },
        { row: 4, field: 'alternateNames.1', code: 'INVALID_FIELD' },
        { row: 5, field: 'identifiers.others.0.id', code: 'INVALID_FIELD' },
        { row: 6, field: 'row', code: 'INVALID_FIELD' },
      ]);
      const csv = Buffer.concat([
        Buffer.from(`iban,name,alternateNames\n${germanIban(796_007)},Eri`),
        loneSurrogateBytes,
        Buffer.from(`ka,\n${germanIban(796_008)},Good Name,Also|Ba\u0000d\n`),
      ]);
      const fromCsv = AccountImportResponse.parse((await upload(csv, 'text/csv')).body);
      assert.deepEqual(fromCsv.errors, [
        { row: 1, field: 'name', code: 'INVALID_FIELD' },
        { row: 2, field: 'alternateNames.1', code: 'INVALID_FIELD' },
      ]);
    });

    it('leaves an audit entry naming the import and the caller', async () => {
      const summary = await imported(ndjson({ iban: germanIban(780_001), name: 'Audited Holder' }));
      const page = await audit.page({ limit: 50 });
      const entry = page.entries.find((candidate) => candidate.target === summary.importId);
      assert.ok(entry, 'an entry targets the import');
      assert.equal(entry.operation, `POST ${IMPORT_PATH}`);
      assert.equal(entry.user, 'BANK-ADMIN');
      assert.equal(entry.result, 'success');
    });
  });
}
