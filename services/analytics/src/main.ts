import { RELEASE_VERSION } from '@vop/config';
import { lowerProcessPriority, runInternalService } from '@vop/lifecycle';
import { createAnalyticsService } from './service.js';

/**
 * Distributed run: one analytics process; its internal listener serves probes and its own families. It
 * runs at VOP_ANALYTICS_NICE: its projection takes the CPU the single checks leave.
 */
await runInternalService('analytics', ({ config, sql, keySql, bus, logger, metrics }) => {
  lowerProcessPriority(config.VOP_ANALYTICS_NICE, logger);
  return createAnalyticsService({
    sql,
    bus,
    logger,
    version: RELEASE_VERSION,
    namespace: config.VOP_KAFKA_NAMESPACE,
    keySql,
    metrics,
  });
});
