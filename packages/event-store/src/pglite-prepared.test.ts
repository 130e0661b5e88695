import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { encodeLongStrings } from './pglite-encoded-params.js';
import { PreparedStatements } from './pglite-prepared.js';

describe('PreparedStatements (PGlite statements kept prepared)', () => {
  let db: PGlite;
  before(async () => {
    db = await PGlite.create({});
    await db.exec(`
      CREATE TABLE kinds (
        id integer PRIMARY KEY, big bigint, amount numeric, at timestamptz, doc jsonb,
        tags text[], raw bytea, flag boolean, label text UNIQUE
      )`);
  });
  after(() => db.close());

  const insert = `INSERT INTO kinds (id, big, amount, at, doc, tags, raw, flag, label)
                  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`;
  const row = (id: number, label: string | null) => [
    id,
    9_007_199_254_740_000n,
    '12.50',
    new Date('2026-11-28T01:02:03.456Z'),
    JSON.stringify({ nested: [1, 'two'] }),
    ['a', 'b c', 'd"e'],
    Buffer.from([0, 1, 254, 255]),
    true,
    label,
  ];

  it('given the same statements, when run prepared and through PGlite query, then rows and counts are the same', async () => {
    const prepared = new PreparedStatements(db);
    const viaPrepared = await prepared.query(insert, row(1, 'one'));
    const viaQuery = await db.query(insert, row(2, 'two'));
    // Apart from the key and the unique label, the rows hold the same values of every type.
    const comparable = (result: { rows: unknown[] }) => ({
      ...(result.rows[0] as Record<string, unknown>),
      id: 0,
      label: '',
    });
    assert.deepEqual(comparable(viaPrepared), comparable(viaQuery));
    assert.equal(viaPrepared.affectedRows, viaQuery.affectedRows);
    assert.deepEqual(viaPrepared.fields, viaQuery.fields);

    const select =
      'SELECT id, big, at, doc, tags, raw, label FROM kinds WHERE id = ANY($1::int[]) ORDER BY id';
    assert.deepEqual(
      (await prepared.query(select, [[1, 2]])).rows,
      (await db.query(select, [[1, 2]])).rows,
    );
    await db.exec('DELETE FROM kinds');
  });

  it('given string values the caller encoded as UTF-8, then rows are those of PGlite query with the strings', async () => {
    const prepared = new PreparedStatements(db);
    // Every string encoded: the numeric, the JSON and the label go across as bytes.
    const values: unknown[] = row(10, 'zoë 😀');
    values[4] = JSON.stringify({ name: 'Ł'.repeat(3000), nested: [1, 'two'] });
    const sent = encodeLongStrings(values, 0);
    assert.equal(sent.encoded?.length, 3);
    const viaEncoded = await prepared.query(insert, sent.params, sent.encoded);
    const viaQuery = await db.query(
      insert,
      values.map((v, i) => (i === 0 ? 11 : i === 8 ? 'other' : v)),
    );
    const comparable = (result: { rows: unknown[] }) => ({
      ...(result.rows[0] as Record<string, unknown>),
      id: 0,
      label: '',
    });
    assert.deepEqual(comparable(viaEncoded), comparable(viaQuery));
    assert.equal((viaEncoded.rows[0] as { label: string }).label, 'zoë 😀');

    // A boolean and bytea take a string as PGlite's serializers do: 'yes' is true, a string refused as bytes.
    const flag = encodeLongStrings(['yes'], 0);
    assert.deepEqual(
      (await prepared.query('SELECT $1::boolean AS flag', flag.params, flag.encoded)).rows,
      [{ flag: true }],
    );
    const raw = encodeLongStrings(['\\x00ff'], 0);
    await assert.rejects(
      prepared.query('SELECT $1::bytea AS raw', raw.params, raw.encoded),
      /Invalid input for bytea type/,
    );
    await assert.rejects(
      db.query('SELECT $1::bytea AS raw', ['\\x00ff']),
      /Invalid input for bytea type/,
    );

    // A statement not kept prepared gets its strings back.
    const label = encodeLongStrings(['ünï'], 0);
    assert.deepEqual(
      (await prepared.query('VALUES ($1::text)', label.params, label.encoded)).rows,
      [{ column1: 'ünï' }],
    );
    await db.exec('DELETE FROM kinds');
  });

  it('given a statement run again with other values, then it is prepared once and each run sees its own values', async () => {
    const prepared = new PreparedStatements(db);
    const select = 'SELECT $1::integer + 1 AS next, $2::text AS label';
    assert.deepEqual((await prepared.query(select, [1, 'a'])).rows, [{ next: 2, label: 'a' }]);
    assert.deepEqual((await prepared.query(select, [41, null])).rows, [{ next: 42, label: null }]);
    assert.equal(prepared.size, 1);
  });

  it('given a failing statement, then its error carries the fields and the text, and the next statement runs', async () => {
    const prepared = new PreparedStatements(db);
    await prepared.query(insert, row(3, 'same'));
    const failed = await prepared.query(insert, row(4, 'same')).catch((error: unknown) => error);
    assert.ok(failed instanceof Error);
    const fields = failed as Error & { code?: string; constraint?: string; query?: string };
    assert.equal(fields.code, '23505');
    assert.equal(fields.constraint, 'kinds_label_key');
    assert.equal(fields.query, insert);
    assert.equal(
      (await prepared.query('SELECT count(*)::integer AS count FROM kinds')).rows[0]?.[
        'count' as never
      ],
      1,
    );
    await assert.rejects(prepared.query('SELEC nothing'), { code: '42601' });
    assert.deepEqual((await prepared.query('SELECT 1 AS one')).rows, [{ one: 1 }]);
    await db.exec('DELETE FROM kinds');
  });

  it('given a transaction that rolls back, then its prepared write is undone and the statement still runs after', async () => {
    const prepared = new PreparedStatements(db);
    await db.exec('BEGIN');
    await prepared.query(insert, row(5, 'rolled back'));
    await db.exec('ROLLBACK');
    assert.equal((await db.query('SELECT * FROM kinds')).rows.length, 0);
    await prepared.query(insert, row(6, 'kept'));
    assert.deepEqual((await db.query('SELECT id FROM kinds')).rows, [{ id: 6 }]);
    await db.exec('DELETE FROM kinds');
  });

  it('given a table changed after a statement was prepared, then the statement answers with the new shape', async () => {
    const prepared = new PreparedStatements(db);
    await prepared.query('CREATE TABLE reshaped (id integer)');
    await prepared.query('INSERT INTO reshaped VALUES ($1)', [1]);
    assert.deepEqual((await prepared.query('SELECT * FROM reshaped')).rows, [{ id: 1 }]);
    await prepared.query("ALTER TABLE reshaped ADD COLUMN label text DEFAULT 'added'");
    assert.equal(prepared.size, 0);
    await db.exec('BEGIN');
    assert.deepEqual((await prepared.query('SELECT * FROM reshaped')).rows, [
      { id: 1, label: 'added' },
    ]);
    await db.exec('COMMIT');
  });

  it('given more statement texts than its bound, then it keeps the ones used last and still runs the others', async () => {
    const own = await PGlite.create({});
    try {
      const prepared = new PreparedStatements(own, 2);
      const texts = [1, 2, 3].map((n) => `SELECT ${n} + $1::integer AS n`);
      for (const text of texts) await prepared.query(text, [0]);
      assert.equal(prepared.size, 2);
      // The first text was closed when the third came, and comes back prepared anew.
      assert.deepEqual((await prepared.query(texts[0]!, [10])).rows, [{ n: 11 }]);
      assert.equal(prepared.size, 2);
      // Closes are sent ahead of the next message: after this one, PGlite holds only the two kept.
      const kept = await prepared.query<{ count: number }>(
        'SELECT count(*)::integer AS count FROM pg_prepared_statements',
      );
      assert.equal(kept.rows[0]?.count, 2);
    } finally {
      await own.close();
    }
  });

  it('given a statement that is not kept (SET, SHOW), then it runs through PGlite query as before', async () => {
    const prepared = new PreparedStatements(db);
    await prepared.query("SET application_name = 'prepared-spec'");
    assert.deepEqual((await prepared.query('SHOW application_name')).rows, [
      { application_name: 'prepared-spec' },
    ]);
    assert.equal(prepared.size, 0);
  });
  it('given a kept read planned while its table was small, when the table has grown, then it is planned again after the interval', async () => {
    const own = await PGlite.create({});
    try {
      // As a copy of the accounts (account-projection.ts): rows wide enough that a plan made for a
      // thousand of them reads the whole table.
      await own.exec(`CREATE TABLE copies (
        account_id uuid PRIMARY KEY, iban text NOT NULL, name text NOT NULL, holder_type text,
        alternate_names jsonb NOT NULL DEFAULT '[]', identifiers jsonb, status text NOT NULL,
        revision integer NOT NULL)`);
      const fill = (from: number, to: number) =>
        own.query(
          `INSERT INTO copies (account_id, iban, name, holder_type, status, revision)
             SELECT ('00000000-0000-7000-8000-' || lpad(n::text, 12, '0'))::uuid, 'DE' || n, 'Name ' || n,
                    'person', 'active', 1
               FROM generate_series($1::integer, $2::integer) AS n`,
          [from, to],
        );
      const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;
      const replanAfterMs = 200;
      const prepared = new PreparedStatements(own, 256, replanAfterMs);
      const read =
        'SELECT account_id::text, revision FROM copies WHERE account_id = ANY($1::uuid[])';
      const many = Array.from({ length: 500 }, (_, index) => id(index + 1));
      /** The plan PostgreSQL keeps for the read after its five custom ones, made for the table as it is now. */
      const keptPlan = async () => {
        for (let run = 0; run < 8; run += 1) await prepared.query(read, [many]);
        const { rows } = await own.query<{ name: string; generic_plans: number }>(
          'SELECT name, generic_plans::integer FROM pg_prepared_statements WHERE statement = $1',
          [read],
        );
        assert.equal(rows.length, 1);
        assert.ok(rows[0]!.generic_plans > 0, 'PostgreSQL keeps one plan for the read');
        const plan = await own.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN EXECUTE ${rows[0]!.name}('{${id(1)}}')`,
        );
        return { name: rows[0]!.name, plan: plan.rows.map((row) => row['QUERY PLAN']).join('\n') };
      };
      await fill(1, 1000);
      const small = await keptPlan();
      assert.match(small.plan, /Seq Scan on copies/);
      await fill(1001, 50_000);
      // Within the interval the plan for a small table is still the one used.
      assert.equal((await keptPlan()).name, small.name);
      await new Promise((resolve) => setTimeout(resolve, replanAfterMs + 50));
      const grown = await keptPlan();
      assert.notEqual(grown.name, small.name);
      assert.match(grown.plan, /Index/);
      assert.doesNotMatch(grown.plan, /Seq Scan/);
    } finally {
      await own.close();
    }
  });
});
