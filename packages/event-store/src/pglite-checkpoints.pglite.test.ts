import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CHECKPOINT_DEFAULTS, checkpointDue, walSinceCheckpoint } from './pglite-checkpoints.js';
import { createPgliteThreadClient } from './pglite-thread-client.js';
import type { SqlClient } from './types.js';

const MIB = 1024 * 1024;

/** About `mib` MiB of rows (and so at least as much WAL), one statement. */
async function writeRows(sql: SqlClient, mib: number): Promise<void> {
  await sql.query(
    `INSERT INTO app.rows (doc) SELECT repeat(md5(g::text), 32) FROM generate_series(1, $1::int) g`,
    [mib * 1024],
  );
}

describe('when the embedded store takes a checkpoint (PGlite runs no checkpointer)', () => {
  it('given the WAL since the last checkpoint, then due past the quiet threshold without single checks, and past the other whatever comes', () => {
    const policy = { quietBytes: 100, anyTimeBytes: 400 };
    assert.equal(checkpointDue(99, false, policy), false, 'below both');
    assert.equal(checkpointDue(100, false, policy), true, 'at the quiet threshold, no checks');
    assert.equal(checkpointDue(399, true, policy), false, 'checks coming put it off');
    assert.equal(checkpointDue(400, true, policy), true, 'past the other, checks or not');
    assert.ok(CHECKPOINT_DEFAULTS.quietBytes < CHECKPOINT_DEFAULTS.anyTimeBytes);
  });

  describe('on a data folder', () => {
    let dir: string;
    let sql: SqlClient;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'vop-pglite-checkpoints-'));
      sql = await createPgliteThreadClient({ dataDir: join(dir, 'pglite') });
      await sql.query('CREATE SCHEMA app');
      await sql.query('CREATE TABLE app.rows (id bigserial PRIMARY KEY, doc text NOT NULL)');
    });
    after(async () => {
      await sql.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('opens PostgreSQL with fsync off, as PGlite does, and so without full page images (pglite-open.ts)', async () => {
      const setting = async (name: string) =>
        (await sql.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name];
      assert.equal(await setting('fsync'), 'off');
      assert.equal(await setting('full_page_writes'), 'off');
    });

    it('given rows written, then the WAL since the last checkpoint counts them; after a checkpoint it starts again', async () => {
      await sql.query('CHECKPOINT');
      const start = await walSinceCheckpoint(sql);
      assert.ok(start < MIB, `just after a checkpoint: ${start} bytes`);

      await writeRows(sql, 8);
      const written = await walSinceCheckpoint(sql);
      assert.ok(written >= start + 8 * MIB, `8 MiB of rows: ${written} bytes of WAL`);

      await sql.query('CHECKPOINT');
      assert.ok((await walSinceCheckpoint(sql)) < MIB);
    });

    it('given the WAL of many checkpoints, then the folder keeps only a bounded part of it', async () => {
      const walFiles = async () => (await readdir(join(dir, 'pglite', 'pg_wal'))).length;
      for (let round = 0; round < 6; round += 1) {
        await writeRows(sql, 32);
        await sql.query('CHECKPOINT');
      }
      // 192 MiB written: 12 segments of 16 MiB. Without checkpoints all of them stay.
      assert.ok((await walFiles()) < 12, `${await walFiles()} WAL segments kept`);
    });
  });
});
