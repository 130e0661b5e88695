import { loadConfig, RELEASE_VERSION, requireDistributed, type ServiceConfig } from '@vop/config';
import { createPostgresClient, type SqlClient } from '@vop/event-store';
import { createInternalApp, loopFailureLog, startHttpServer, type ReadinessCheck } from '@vop/http';
import { createKafkaBus, type Bus } from '@vop/messaging';
import {
  createLogger,
  createMetricsRegistry,
  metricsEndpoint,
  type Logger,
  type ServiceMetrics,
} from '@vop/observability';
import { registerLagMetrics, serviceHealth } from '@vop/outbox';
import type { Router } from 'express';
import { brokerReadiness } from './broker-readiness.js';
import { kafkaValueCodec } from './kafka-value-codec.js';
import { startServiceTracing } from './service-tracing.js';
import { startWithRetry } from './start-with-retry.js';

/** What a service main hands to its service: the process's connections, settings and instruments. */
export interface ServiceParts {
  config: ServiceConfig;
  logger: Logger;
  metrics: ServiceMetrics;
  sql: SqlClient;
  /** The database holding the subject keys (VOP_KEYSTORE_DATABASE_URL), else `sql`. */
  keySql: SqlClient;
  bus: Bus;
}

/** A service as its main runs it: its own routes, its lifecycle, and what readiness and health ask. */
export interface RunnableService {
  routers: Router[];
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Throws while the service cannot answer yet (e.g. its outbox relay has not settled its lease). */
  checkReady?(): Promise<void>;
  /** Its part of the gateway's GET /health/detailed. */
  health?(): Promise<object>;
}

/**
 * The distributed run's main of a service behind the gateway: connections from the configuration,
 * the service started with retries of transient broker and database errors, then its internal
 * listener (probes, /metrics, its own families); SIGINT/SIGTERM stop it in order.
 */
export async function runInternalService(
  name: string,
  create: (parts: ServiceParts) => RunnableService,
): Promise<void> {
  const config = loadConfig();
  const tracing = startServiceTracing(name);
  const logger = createLogger({ service: name, level: config.LOG_LEVEL });
  const { databaseUrl, kafkaBrokers } = requireDistributed(config);
  const metrics = createMetricsRegistry({ service: name });
  // Idle connections the server dropped: a log line a while per outage, not a process warning each.
  const connectionLost = loopFailureLog(logger, 'database connection lost; reconnecting on use');
  const sql = createPostgresClient({
    connectionString: databaseUrl,
    max: config.DATABASE_POOL_MAX,
    applicationName: `vop-${name}-${config.VOP_INSTANCE_ID}`,
    onError: connectionLost,
  });
  const keySql = config.VOP_KEYSTORE_DATABASE_URL
    ? createPostgresClient({
        connectionString: config.VOP_KEYSTORE_DATABASE_URL,
        max: 4,
        applicationName: `vop-${name}-keys-${config.VOP_INSTANCE_ID}`,
        onError: connectionLost,
      })
    : sql;
  const bus = createKafkaBus({
    brokers: kafkaBrokers,
    clientId: `${config.KAFKA_CLIENT_ID}-${name}-${config.VOP_INSTANCE_ID}`,
    fetchWaitMs: config.VOP_KAFKA_FETCH_WAIT_MS,
    ...kafkaValueCodec(config),
  });
  const service = create({ config, logger, metrics, sql, keySql, bus });
  // Every group the service subscribed, whether or not it names them for its health report.
  registerLagMetrics(metrics, {
    bus,
    consumers: () => bus.subscribedGroups?.() ?? [],
    outboxes: [],
  });

  let ready = false;
  if (config.VOP_INTERNAL_SECRET === undefined)
    logger.warn('VOP_INTERNAL_SECRET is not set: serving probes only');
  const checks: ReadinessCheck[] = [
    { name: 'database', check: async () => void (await sql.query('SELECT 1')) },
    brokerReadiness(bus),
  ];
  if (service.checkReady) checks.push({ name: name, check: () => service.checkReady!() });
  // Every service answers the gateway's GET /health/detailed, with its database and broker at least.
  const health =
    service.health?.bind(service) ??
    (() =>
      serviceHealth({
        service: name,
        sql,
        bus,
        topics: [],
        consumers: () => bus.subscribedGroups?.() ?? [],
        outboxes: [],
      }));
  const app = createInternalApp({
    logger,
    respondingPsp: config.VOP_RESPONDING_PSP,
    version: RELEASE_VERSION,
    startedAt: Date.now(),
    checks,
    isShuttingDown: () => !ready,
    metrics: metricsEndpoint(metrics),
    routers: service.routers,
    detailed: { report: async () => ({ services: [await health()] }) },
    internalSecret: config.VOP_INTERNAL_SECRET,
  });

  await startWithRetry({ start: () => service.start(), logger, what: name });
  ready = true;
  const server = await startHttpServer({
    handler: app,
    host: config.VOP_HOST,
    port: config.VOP_PORT,
    limits: { maxConnections: config.VOP_MAX_CONNECTIONS },
  });
  logger.info({ url: server.url }, `${name} ready`);

  let stopping = false;
  async function shutdown(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    ready = false;
    logger.info({ signal }, 'shutting down');
    await service.stop();
    await server.close();
    await bus.close();
    if (keySql !== sql) await keySql.close();
    await sql.close();
    await tracing.shutdown();
    process.exit(0);
  }
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
