import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';

const commaList = z
  .string()
  .transform((value) => value.split(',').map((item) => item.trim()).filter((item) => item.length > 0));

const port = z.coerce.number().int().min(0).max(65535);

/** Every setting a service reads, from environment variables, validated once at start. */
export const ServiceConfig = z.object({
  VOP_ENVIRONMENT: z.enum(['test', 'live']).default('test'),
  VOP_PROFILE: z.enum(['development', 'production']).default('development'),
  VOP_HOST: z.string().default('127.0.0.1'),
  VOP_PORT: port.default(8443),
  VOP_DATA_DIR: z.string().default('./.vop-data'),
  VOP_INSTANCE_ID: z.string().min(1).default(() => randomUUID().slice(0, 8)),
  /** Our bank's BIC, reported as respondingPSP in scheme errors. */
  VOP_RESPONDING_PSP: z.string().default('VOPBDEFFXXX'),
  VOP_VERIFY_DEADLINE_MS: z.coerce.number().int().positive().default(2000),
  VOP_TLS_CERT: z.string().optional(),
  VOP_TLS_KEY: z.string().optional(),
  VOP_TLS_CA: z.string().optional(),
  DATABASE_URL: z.string().optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().positive().default(10),
  KAFKA_BROKERS: commaList.optional(),
  KAFKA_CLIENT_ID: z.string().default('vop'),
  /** Prefix of every topic and consumer group of this deployment (e.g. "live." or a test run's id). */
  VOP_KAFKA_NAMESPACE: z.string().regex(/^[A-Za-z0-9._-]*$/).default(''),
  SCHEMA_REGISTRY_URL: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type ServiceConfig = z.infer<typeof ServiceConfig>;

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n  ${issues.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const parsed = ServiceConfig.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return { ...parsed.data, VOP_DATA_DIR: path.resolve(parsed.data.VOP_DATA_DIR) };
}

/** Distributed mode needs both servers; naming what is missing beats a connection error later. */
export function requireDistributed(config: ServiceConfig): { databaseUrl: string; kafkaBrokers: string[] } {
  const missing = [
    config.DATABASE_URL ? undefined : 'DATABASE_URL',
    config.KAFKA_BROKERS && config.KAFKA_BROKERS.length > 0 ? undefined : 'KAFKA_BROKERS',
  ].filter((name): name is string => name !== undefined);
  if (missing.length > 0) throw new ConfigError(missing.map((name) => `${name}: required in distributed mode`));
  return { databaseUrl: config.DATABASE_URL as string, kafkaBrokers: config.KAFKA_BROKERS as string[] };
}
