import type { ServiceConfig } from '@vop/config';
import type { SchemeParticipant } from '@vop/contracts';
import { DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER } from '@vop/pki';
import type { TestAccountRetention } from './accounts/test-account-sweeper.js';
import {
  DEFAULT_FAILURE_LIMITS,
  type VerificationFailureLimits,
} from './verification-failures/timeout-sweeper.js';
import type { RateLimitSettings } from './security/rate-limit-policy.js';

export interface GatewaySecuritySettings {
  rateLimits: RateLimitSettings;
  /** Test deployments: how long test accounts live and how often the job looks (defaults: 24 h, every minute). */
  testAccounts?: TestAccountRetention;
  /** Development profile: where the first-start test key is written (`<dataDir>/pki/test-api-key.txt`). */
  developmentKeyDataDir?: string;
  /** How long typed payee names stay readable (whole UTC days; default 7 days). */
  typedNameRetentionMs?: number;
  /**
   * Scheme adherence on /vop/* (issue 16). Absent (a gateway built without settings, as specs do):
   * every partyAgent is answered and no directory is seeded; the directory check still applies.
   */
  schemeDirectory?: SchemeDirectorySettings;
  /** When a verification without an outcome ends as failed (default: DEFAULT_FAILURE_LIMITS). */
  verificationFailures?: VerificationFailureLimits;
  /** The test toolkit's caller-named targets: networks allowed although not public (default none). */
  testTargetAllowedNetworks?: string[];
}

export interface SchemeDirectorySettings {
  /** The partyAgent BICs this deployment answers for; any other is answered NOAP. */
  ownBics: string[];
  /** Development profile: loaded as version 1 when no directory was ever loaded. */
  developmentSeed?: SchemeParticipant[];
}

/** The BIC of the README's examples and the tests: the development profile answers for it too. */
export const DEVELOPMENT_PARTY_AGENT_BIC = 'COBADEFFXXX';
/** The requestingAgent BIC of the development participant certificate (client.pem) in the seed. */
export const DEVELOPMENT_REQUESTING_AGENT_BIC = 'DEUTDEFFXXX';

export function schemeDirectorySettings(config: ServiceConfig): SchemeDirectorySettings {
  const development = config.VOP_PROFILE === 'development';
  return {
    ownBics: config.VOP_OWN_BICS ?? [
      config.VOP_RESPONDING_PSP,
      ...(development ? [DEVELOPMENT_PARTY_AGENT_BIC] : []),
    ],
    ...(development && {
      developmentSeed: [
        {
          authorisationNumber: DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER,
          name: 'VoP development participant',
          bics: [DEVELOPMENT_REQUESTING_AGENT_BIC],
          roles: ['requesting'],
          environment: config.VOP_ENVIRONMENT === 'live' ? 'L' : 'T',
        },
      ],
    }),
  };
}

export const DEFAULT_TYPED_NAME_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export function gatewaySecuritySettings(config: ServiceConfig): GatewaySecuritySettings {
  return {
    rateLimits: {
      environment: config.VOP_ENVIRONMENT,
      livePerMinute: config.VOP_RATE_LIMITS,
      testVerificationsPerMinute: config.VOP_TEST_RATE_LIMITS,
      testPerHour: config.VOP_RATE_LIMIT_TEST_PER_HOUR,
      adminPerMinute: config.VOP_RATE_LIMIT_ADMIN_PER_MINUTE,
    },
    testAccounts: {
      retentionMs: config.VOP_TEST_ACCOUNT_RETENTION_MS,
      sweepIntervalMs: config.VOP_TEST_ACCOUNT_SWEEP_INTERVAL_MS,
    },
    typedNameRetentionMs: config.VOP_TYPED_NAME_RETENTION_MS,
    verificationFailures: {
      ...DEFAULT_FAILURE_LIMITS,
      synchronousMs: config.VOP_VERIFICATION_FAIL_AFTER_MS,
      deferredMs: config.VOP_DEFERRED_VERIFICATION_FAIL_AFTER_MS,
    },
    schemeDirectory: schemeDirectorySettings(config),
    testTargetAllowedNetworks: config.VOP_TEST_TARGET_ALLOWED_NETWORKS,
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
