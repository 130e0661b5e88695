import { runInternalService } from '@vop/lifecycle';
import { createBatchService } from './service.js';

/** Distributed run: one batch process; its internal listener serves probes and its own families. */
await runInternalService('batch', ({ config, sql, keySql, bus, logger, metrics }) =>
  createBatchService({
    sql,
    bus,
    logger,
    namespace: config.VOP_KAFKA_NAMESPACE,
    metrics,
    keySql,
    entryBudget: { environment: config.VOP_ENVIRONMENT, livePerMinute: config.VOP_RATE_LIMITS },
  }),
);
