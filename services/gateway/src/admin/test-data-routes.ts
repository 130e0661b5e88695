import { readFile } from 'node:fs/promises';
import { AccountStatus, HolderType, Iban, NameMatchOutcome, z } from '@vop/contracts';
import type { SqlExecutor } from '@vop/event-store';
import { requestMetadata, createRouter } from '@vop/http';
import { type Router } from 'express';
import { handleAccountCommand } from '../accounts/command-handler.js';
import { findLiveAccountIdByIban } from '../accounts/read-model.js';
import type { AccountRoutesOptions } from '../accounts/routes.js';

/** The documented reference set (services/gateway/test-data/reference-accounts.json). */
export const REFERENCE_DATA_FILE = new URL(
  '../../test-data/reference-accounts.json',
  import.meta.url,
);

export const ReferenceDataSet = z.object({
  dataSet: z.string(),
  version: z.string(),
  accounts: z.array(
    z.object({
      iban: Iban,
      name: z.string().min(1),
      holderType: HolderType.optional(),
      alternateNames: z.array(z.string()).optional(),
      status: AccountStatus.optional(),
    }),
  ),
  checks: z.array(
    z.object({ iban: Iban, name: z.string(), outcome: NameMatchOutcome, why: z.string() }),
  ),
});
export type ReferenceDataSet = z.infer<typeof ReferenceDataSet>;

export async function loadReferenceDataSet(): Promise<ReferenceDataSet> {
  return ReferenceDataSet.parse(JSON.parse(await readFile(REFERENCE_DATA_FILE, 'utf8')));
}

async function liveAccountIds(sql: SqlExecutor, schema: string, limit: number): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>(
    `SELECT id::text AS id FROM ${schema}.accounts WHERE deleted_at IS NULL ORDER BY created_at LIMIT $1`,
    [limit],
  );
  return rows.map((row) => row.id);
}

/**
 * Test deployments only (mounted only there, so `live` answers 404): POST /admin/reset-test-data
 * deletes every account record through the account decider (matching and analytics follow the
 * events); POST /admin/import-test-data opens the reference accounts whose IBAN is free. The edge
 * audits both (management writes).
 */
export function testDataRoutes({
  store,
  protect,
  copy,
  clock,
  newId,
}: AccountRoutesOptions): Router {
  const router = createRouter();
  const schema = store.schema;

  router.post('/admin/reset-test-data', async (req, res) => {
    let removed = 0;
    for (;;) {
      const ids = await liveAccountIds(store.sql, schema, 200);
      if (ids.length === 0) break;
      for (const accountId of ids) {
        await handleAccountCommand(
          store,
          { type: 'DeleteAccount', accountId, now: clock().toISOString() },
          requestMetadata(req),
          {},
          undefined,
          copy,
        );
        removed++;
      }
    }
    res.json({ status: 'reset', accountsRemoved: removed });
  });

  router.post('/admin/import-test-data', async (req, res) => {
    const data = await loadReferenceDataSet();
    let imported = 0;
    let skipped = 0;
    for (const account of data.accounts) {
      if ((await findLiveAccountIdByIban(store.sql, schema, account.iban)) !== undefined) {
        skipped++;
        continue;
      }
      await handleAccountCommand(
        store,
        { type: 'OpenAccount', accountId: newId(), fields: account, now: clock().toISOString() },
        requestMetadata(req),
        {},
        protect,
        copy,
      );
      imported++;
    }
    res.json({
      status: 'imported',
      dataSet: data.dataSet,
      version: data.version,
      imported,
      skipped,
      checks: data.checks,
    });
  });
  return router;
}
