import { kafkaValueCodec } from '@vop/lifecycle';
import { requireDistributed, type ServiceConfig } from '@vop/config';
import { createPostgresClient, type SqlClient } from '@vop/event-store';
import { createKafkaBus, type Bus } from '@vop/messaging';

/**
 * The distributed gateway's database and broker connections, for its main thread and its relay thread
 * (`role` names the thread's connections in pg_stat_activity and the broker's client ids).
 */
export function gatewayConnections(
  config: ServiceConfig,
  role?: string,
  poolMax: number = config.DATABASE_POOL_MAX,
): { sql: SqlClient; bus: Bus } {
  const { databaseUrl, kafkaBrokers } = requireDistributed(config);
  const suffix = `gateway-${config.VOP_INSTANCE_ID}${role === undefined ? '' : `-${role}`}`;
  return {
    sql: createPostgresClient({
      connectionString: databaseUrl,
      max: poolMax,
      applicationName: `vop-${suffix}`,
    }),
    bus: createKafkaBus({
      brokers: kafkaBrokers,
      clientId: `${config.KAFKA_CLIENT_ID}-${suffix}`,
      fetchWaitMs: config.VOP_KAFKA_FETCH_WAIT_MS,
      ...kafkaValueCodec(config),
    }),
  };
}
