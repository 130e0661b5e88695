import { runInternalService } from '@vop/lifecycle';
import { createNameMatcher } from '@vop/name-matching';
import { createMatchingService } from './service.js';

/** Distributed run: one matching process; its internal listener serves probes and its own families. */
await runInternalService('matching', ({ config, sql, keySql, bus, logger, metrics }) =>
  createMatchingService({
    sql,
    bus,
    logger,
    matcher: createNameMatcher(),
    instanceId: config.VOP_INSTANCE_ID,
    namespace: config.VOP_KAFKA_NAMESPACE,
    metrics,
    keySql,
  }),
);
