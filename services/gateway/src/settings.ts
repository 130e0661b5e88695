import type { ServiceConfig } from '@vop/config';
import type { TestAccountRetention } from './accounts/test-account-sweeper.js';
import type { RateLimitSettings } from './security/rate-limit-policy.js';

export interface GatewaySecuritySettings {
  rateLimits: RateLimitSettings;
  /** Test deployments: how long test accounts live and how often the job looks (defaults: 24 h, every minute). */
  testAccounts?: TestAccountRetention;
  /** Development profile: where the first-start test key is written (`<dataDir>/pki/test-api-key.txt`). */
  developmentKeyDataDir?: string;
  /** How long typed payee names stay readable (whole UTC days; default 7 days). */
  typedNameRetentionMs?: number;
}

export const DEFAULT_TYPED_NAME_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export function gatewaySecuritySettings(config: ServiceConfig): GatewaySecuritySettings {
  return {
    rateLimits: {
      environment: config.VOP_ENVIRONMENT,
      livePerMinute: config.VOP_RATE_LIMITS,
      testPerHour: config.VOP_RATE_LIMIT_TEST_PER_HOUR,
      adminPerMinute: config.VOP_RATE_LIMIT_ADMIN_PER_MINUTE,
    },
    testAccounts: {
      retentionMs: config.VOP_TEST_ACCOUNT_RETENTION_MS,
      sweepIntervalMs: config.VOP_TEST_ACCOUNT_SWEEP_INTERVAL_MS,
    },
    typedNameRetentionMs: config.VOP_TYPED_NAME_RETENTION_MS,
    ...(config.VOP_PROFILE === 'development' &&
      config.VOP_ENVIRONMENT === 'test' && { developmentKeyDataDir: config.VOP_DATA_DIR }),
  };
}

export const DEFAULT_TEST_ACCOUNT_RETENTION: TestAccountRetention = {
  retentionMs: 24 * 60 * 60 * 1000,
  sweepIntervalMs: 60_000,
};

export const DEFAULT_SECURITY: GatewaySecuritySettings = {
  rateLimits: {
    environment: 'test',
    livePerMinute: { default: 6000 },
    testPerHour: 100,
    adminPerMinute: 60,
  },
};
