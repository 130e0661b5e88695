import type { RequestListener } from 'node:http';
import { createAddressGuard } from '@vop/address-guard';
import { LATEST_REFERENCE_DATA_VERSION } from '@vop/conformance';
import { SerialQueue, type EventStore } from '@vop/event-store';
import type { Logger, ServiceMetrics } from '@vop/observability';
import type { Router } from 'express';
import type { AccountRoutesOptions } from '../accounts/routes.js';
import { certificateRoutes } from './certificate-routes.js';
import { performanceRoutes } from './performance-routes.js';
import { createSandbox, type SandboxOptions } from './sandbox.js';
import { loadReferenceAccounts } from './sandbox-data.js';
import { sandboxDataRoutes } from './sandbox-data-routes.js';
import { schemeRunRoutes } from './scheme-run-routes.js';
import { interruptUnfinishedRuns, migrateTestRuns } from './test-runs.js';

export interface TestToolkit {
  routers: Router[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Family I, the test toolkit: mounted in test deployments only (a live one answers 404). Its runs
 * are event-sourced in the gateway's store; a run the service stopped under is marked interrupted
 * at the next start (a new run takes seconds; resuming would need the target's key kept).
 */
export function createTestToolkit(options: {
  store: EventStore;
  accountWrites: AccountRoutesOptions;
  sandbox: SandboxOptions | undefined;
  trustAnchorsPem: string | undefined;
  app: () => RequestListener;
  /** VOP_INSTANCE_ID: a restart interrupts only the runs this instance was running. */
  instanceId: string;
  /**
   * VOP_TEST_TARGET_ALLOWED_NETWORKS: where a caller-named `target` may be although not public
   * (default none). A run against this deployment itself is not guarded: no caller names it.
   */
  targetAllowedNetworks?: readonly string[];
  /** The service's HTTP metrics: GET /test/performance/metrics before any load run. */
  metrics?: ServiceMetrics;
  logger: Logger;
  clock: () => Date;
  newId: () => string;
}): TestToolkit {
  const { store, logger, clock, newId } = options;
  const sandbox = options.sandbox && createSandbox(options.sandbox, options.app);
  // Loads and resets one at a time in this process: two at once both found the same accounts to
  // remove, or none of a reference account to open, and the second answered 500 (a client that gave
  // up on a long reset sends the next at once, as schemathesis's did in CI).
  const loadsAndResets = new SerialQueue();
  const schemeRuns = schemeRunRoutes({
    store,
    sandbox,
    logger,
    clock,
    newId,
    loadReferenceData: (metadata) =>
      loadsAndResets.run(() =>
        loadReferenceAccounts(options.accountWrites, LATEST_REFERENCE_DATA_VERSION, metadata),
      ),
    instanceId: options.instanceId,
    targetGuard: createAddressGuard({
      httpsOnly: true,
      allowedNetworks: options.targetAllowedNetworks ?? [],
    }),
  });
  const performance = performanceRoutes({ sandbox, metrics: options.metrics, clock, newId });
  return {
    routers: [
      schemeRuns.router,
      sandboxDataRoutes(options.accountWrites, loadsAndResets),
      performance.router,
      certificateRoutes({ sandbox, trustAnchorsPem: options.trustAnchorsPem, clock }),
    ],
    async start() {
      await migrateTestRuns(store.sql, store.schema);
      const interrupted = await interruptUnfinishedRuns(store, {
        instanceId: options.instanceId,
        now: clock(),
      });
      if (interrupted > 0)
        logger.info({ interrupted }, 'test runs cut off by a stop marked interrupted');
    },
    async stop() {
      await schemeRuns.stop();
      await performance.stop();
      await sandbox?.stop();
    },
  };
}
