import { runInternalService } from '@vop/lifecycle';
import { createWebhookDispatcher } from './service.js';
import { webhookSettings } from './settings.js';

/** Distributed run: one dispatcher process; its internal listener serves probes and /webhooks*. */
await runInternalService('webhook-dispatcher', ({ config, sql, keySql, bus, logger, metrics }) =>
  createWebhookDispatcher({
    sql,
    keySql,
    bus,
    logger,
    namespace: config.VOP_KAFKA_NAMESPACE,
    metrics,
    settings: webhookSettings(config),
  }),
);
