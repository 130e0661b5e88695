import { AuditLog } from '../audit/audit-log.js';
import type { GatewayContext, GatewayModule } from '../module.js';
import { ApiKeyStore } from '../security/api-keys/api-key-store.js';
import { ensureDevelopmentKey } from '../security/api-keys/development-key.js';
import { createRateLimits } from '../security/rate-limit.js';
import { adminRoutes } from './admin-routes.js';

/** API keys, the audit log, rate limits and subject keys, with the admin routes that manage them. */
export function adminModule(context: GatewayContext): GatewayModule & {
  apiKeys: ApiKeyStore;
  audit: AuditLog;
  rateLimits: ReturnType<typeof createRateLimits>;
} {
  const { sql, schema, security, environment, logger, personalData } = context;
  const apiKeys = new ApiKeyStore(sql, schema);
  const audit = new AuditLog(sql, schema);
  const rateLimits = createRateLimits({ sql, schema, settings: security.rateLimits, logger });
  return {
    apiKeys,
    audit,
    rateLimits,
    routers: [
      adminRoutes({
        keys: apiKeys,
        audit,
        environment,
        subjectKeys: personalData.keys,
        schema,
      }),
    ],
    async migrate() {
      await apiKeys.migrate();
      await audit.migrate();
      await personalData.keys.migrate();
      await rateLimits.migrate();
    },
    async prepare() {
      if (security.developmentKeyDataDir === undefined) return;
      const written = await ensureDevelopmentKey({
        dataDir: security.developmentKeyDataDir,
        keys: apiKeys,
        audit,
      });
      if (written) logger.info({ file: written }, 'development test API key written');
    },
  };
}
