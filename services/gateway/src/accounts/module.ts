import type { AccountCopyAtCommit } from '@vop/verifications';
import { accountEventProtector } from '@vop/personal-data';
import { testDataRoutes } from '../admin/test-data-routes.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { GatewayContext, GatewayModule } from '../module.js';
import { DEFAULT_TEST_ACCOUNT_RETENTION } from '../settings.js';
import {
  migrateCoreBankingFeed,
  subscribeToCoreBankingFeed,
} from './core-banking/feed-consumer.js';
import {
  ChecksAtOtherGateways,
  migrateCheckTimesOfGateways,
  reportCheckTimes,
} from './import/checks-at-other-gateways.js';
import { migrateAccountImports } from './import/import-read-model.js';
import { accountImportRoutes } from './import/import-routes.js';
import { migrateAccountsReadModel } from './read-model.js';
import { accountRoutes, type AccountRoutesOptions } from './routes.js';
import { sandboxAccountRoutes } from './sandbox-routes.js';
import { createTestAccountSweeper } from './test-account-sweeper.js';

/**
 * The bank's accounts, however they arrive: the account routes, a bulk import, the core-banking feed
 * and, in test deployments, the sandbox's accounts and their retention.
 */
export function accountsModule(
  context: GatewayContext,
  options: {
    /** Every copy of the accounts that decisions read, written with each account write. */
    copy: AccountCopyAtCommit;
    audit: AuditLog;
    /** Rows per transaction of a bulk import (default by database: see import/import-routes.ts). */
    importChunkRows?: number;
    /** The least share of its pace a bulk import keeps beside single checks (import/import-pacer.ts). */
    importLeastShare?: number;
  },
): GatewayModule & { writes: AccountRoutesOptions } {
  const { sql, schema, store, bus, topics, namespace, logger, personalData, clock, newId } =
    context;
  const { copy } = options;
  const writes = { store, protect: accountEventProtector(personalData.cipher), copy, clock, newId };
  const testEnvironment = context.environment === 'test';
  const sweeper = testEnvironment
    ? createTestAccountSweeper({
        store,
        copy,
        retention: context.security.testAccounts ?? DEFAULT_TEST_ACCOUNT_RETENTION,
        logger: logger.child({ component: 'test-account-retention' }),
        now: clock,
      })
    : undefined;
  // Several gateways share PostgreSQL, and an import at one yields to the checks at all; PGlite is
  // one process, whose gate sees every check.
  const shared = sql.kind === 'postgres';
  const checkTimes = shared
    ? reportCheckTimes({
        sql,
        schema,
        instanceId: context.instanceId,
        gate: context.priorityGate,
        logger: logger.child({ component: 'single-check-times' }),
      })
    : undefined;
  const importRoutes = accountImportRoutes({
    store,
    copy,
    cipher: personalData.cipher,
    audit: options.audit,
    logger: logger.child({ component: 'account-import' }),
    clock,
    newId,
    ...(options.importChunkRows !== undefined && { chunkRows: options.importChunkRows }),
    ...(options.importLeastShare !== undefined && { leastShare: options.importLeastShare }),
    gate: context.priorityGate,
    ...(shared && {
      otherGateways: new ChecksAtOtherGateways({
        sql,
        schema,
        instanceId: context.instanceId,
        logger: logger.child({ component: 'account-import' }),
      }),
    }),
  });
  return {
    writes,
    routers: [
      // Before the admin routes: /admin/accounts/import is its own family (a streamed upload).
      importRoutes,
      // Before the bank's account routes: the sandbox owns the `acc_` form of DELETE /api/accounts/{id}.
      ...(testEnvironment ? [sandboxAccountRoutes(writes), testDataRoutes(writes)] : []),
      accountRoutes(writes),
    ],
    async migrate() {
      await migrateAccountsReadModel(sql, schema);
      await migrateCoreBankingFeed(sql, schema);
      await migrateAccountImports(sql, schema);
      if (shared) await migrateCheckTimesOfGateways(sql, schema);
    },
    async subscribe(opened) {
      opened.push(
        await subscribeToCoreBankingFeed({
          ...writes,
          bus,
          topics,
          groupPrefix: namespace,
          logger: logger.child({ component: 'core-banking-feed' }),
        }),
      );
    },
    run: () => {
      sweeper?.start();
      checkTimes?.start();
    },
    stop: async () => {
      await checkTimes?.stop();
      await sweeper?.stop();
    },
  };
}
