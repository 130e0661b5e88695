import { randomUUID } from 'node:crypto';
import type { SqlClient } from '@vop/event-store';
import { migrateSchema } from '@vop/event-store';

/**
 * A time-limited lease in the database so that one relay per store publishes while others stand by;
 * a holder that dies is replaced once its lease runs out. A holder is `<instance>/<process>`: a
 * deployment runs one process per instance id (VOP_INSTANCE_ID), so a new process of the same instance
 * knows its predecessor is gone and takes the lease at once instead of waiting for it to run out
 * (a restart would otherwise leave nobody publishing, and single checks timing out, for a lease period).
 */
export class Lease {
  private readonly holder: string;

  constructor(
    private readonly sql: SqlClient,
    private readonly schema: string,
    private readonly name: string,
    private readonly instance: string,
    private readonly durationMs: number,
  ) {
    if (instance.includes('/')) throw new Error('a lease instance id may not contain "/"');
    this.holder = `${instance}/${randomUUID()}`;
  }

  async migrate(): Promise<void> {
    await migrateSchema(this.sql, this.schema, [
      `CREATE TABLE IF NOT EXISTS ${this.schema}.leases (name text PRIMARY KEY, holder text NOT NULL, expires_at timestamptz NOT NULL)`,
    ]);
  }

  /** Takes or renews the lease; true while this holder has it. */
  async acquire(): Promise<boolean> {
    const result = await this.sql.query(
      `INSERT INTO ${this.schema}.leases (name, holder, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3))
       ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
       WHERE ${this.schema}.leases.holder = EXCLUDED.holder
          OR ${this.schema}.leases.expires_at < now()
          OR split_part(${this.schema}.leases.holder, '/', 1) = $4`,
      [this.name, this.holder, this.durationMs / 1000, this.instance],
    );
    return result.rowCount === 1;
  }

  async release(): Promise<void> {
    await this.sql.query(`DELETE FROM ${this.schema}.leases WHERE name = $1 AND holder = $2`, [
      this.name,
      this.holder,
    ]);
  }
}
