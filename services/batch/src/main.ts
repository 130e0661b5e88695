import { lowerProcessPriority, runInternalService } from '@vop/lifecycle';
import { ContentionPacer } from '@vop/messaging';
import { createBatchService } from './service.js';

/**
 * Distributed run: one batch process; its internal listener serves probes and its own families. It
 * runs at VOP_BATCH_NICE: its fan-out and progress take the CPU the single checks leave.
 */
await runInternalService('batch', ({ config, sql, keySql, bus, logger, metrics }) => {
  lowerProcessPriority(config.VOP_BATCH_NICE, logger);
  return createBatchService({
    sql,
    bus,
    logger,
    namespace: config.VOP_KAFKA_NAMESPACE,
    metrics,
    keySql,
    entriesDecidedBy: config.VOP_BATCH_ENTRIES_DECIDED_BY,
    ...(config.VOP_BATCH_PACING && { pacer: new ContentionPacer() }),
    entryBudget: {
      environment: config.VOP_ENVIRONMENT,
      livePerMinute: config.VOP_RATE_LIMITS,
      testPerMinute: config.VOP_TEST_RATE_LIMITS,
    },
  });
});
