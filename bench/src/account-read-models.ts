import { createPostgresClient, type SqlClient } from '@vop/event-store';
import { eventually } from '@vop/testing';

/**
 * The account read models outside the gateway and matching (batch's copy of the accounts, analytics'
 * accounts), read from their databases: an import is done when each holds every account it wrote,
 * and, for the nightly file, each changed record's newer state.
 */
export interface AccountReadModels {
  /** Until each read model holds `accounts` rows and (with `changedSince`) that many rows newer than it. */
  reach(expected: { accounts: number; changedSince?: { at: Date; count: number } }): Promise<void>;
  close(): Promise<void>;
}

/**
 * What each read model is called, its table and the column that says when its row last changed. Batch's
 * domestic accounts hold UK accounts only, none in this bench's mix; its copy of the accounts is written
 * in the same transaction as they are, and keeps no time, so only its rows are counted.
 */
const READ_MODELS: readonly { service: string; table: string; changedAt?: string }[] = [
  { service: 'batch', table: 'batch_decisions.accounts' },
  { service: 'analytics', table: 'analytics.accounts', changedAt: 'updated_at' },
];

export function accountReadModels(
  databases: { service: string; url: string }[],
): AccountReadModels {
  const models = READ_MODELS.flatMap((model) => {
    const database = databases.find(({ service }) => service === model.service);
    if (database === undefined) return [];
    const sql: SqlClient = createPostgresClient({
      connectionString: database.url,
      max: 1,
      applicationName: 'vop-bench',
    });
    return [{ ...model, sql }];
  });
  return {
    async reach({ accounts, changedSince }) {
      for (const { service, table, changedAt, sql } of models)
        await eventually(
          async () => {
            // Undefined until the service has made its table.
            const row = await sql
              .query<{ accounts: string; changed: string }>(
                `SELECT count(*) AS accounts,
                        count(*) FILTER (WHERE ${changedAt ?? 'NULL::timestamptz'} >= $1) AS changed FROM ${table}`,
                [changedSince?.at ?? new Date(0)],
              )
              .then(({ rows }) => rows[0])
              .catch(() => undefined);
            const done =
              Number(row?.accounts) === accounts &&
              (changedSince === undefined ||
                changedAt === undefined ||
                Number(row?.changed) === changedSince.count);
            return done ? true : undefined;
          },
          { timeoutMs: 3_600_000, intervalMs: 500, what: `${service}'s accounts read model` },
        );
    },
    async close() {
      await Promise.all(models.map(({ sql }) => sql.close()));
    },
  };
}
