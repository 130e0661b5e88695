import { RELEASE_VERSION } from '@vop/config';
import { runInternalService } from '@vop/lifecycle';
import { createAnalyticsService } from './service.js';

/** Distributed run: one analytics process; its internal listener serves probes and its own families. */
await runInternalService('analytics', ({ config, sql, keySql, bus, logger, metrics }) =>
  createAnalyticsService({
    sql,
    bus,
    logger,
    version: RELEASE_VERSION,
    namespace: config.VOP_KAFKA_NAMESPACE,
    keySql,
    metrics,
  }),
);
