import { lowerProcessPriority, runInternalService } from '@vop/lifecycle';
import { ContentionPacer } from '@vop/messaging';
import { createNameMatcher } from '@vop/name-matching';
import { createMatchingService } from './service.js';

/**
 * Distributed run: one matching process per role set (VOP_MATCHING_ROLES); its internal listener
 * serves probes and its own families. A process that only decides batch entries runs at
 * VOP_BATCH_NICE, as the batch service does.
 */
await runInternalService('matching', ({ config, sql, keySql, bus, logger, metrics }) => {
  const roles = new Set(config.VOP_MATCHING_ROLES);
  if (!roles.has('single')) lowerProcessPriority(config.VOP_BATCH_NICE, logger);
  return createMatchingService({
    sql,
    bus,
    logger,
    matcher: createNameMatcher(),
    instanceId: config.VOP_INSTANCE_ID,
    namespace: config.VOP_KAFKA_NAMESPACE,
    metrics,
    keySql,
    roles,
    ...(config.VOP_BATCH_PACING && { batchPacer: new ContentionPacer() }),
  });
});
