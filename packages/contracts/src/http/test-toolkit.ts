import { UNSAFE_CHARACTER_CLASS } from '../unsafe-characters.js';
import { z } from '../zod.js';

// Family I, the test toolkit (test deployments only): /test/* bodies and answers.

// Lines of text: the edge refuses the unsafe characters in every string (packages/http/src/hostile-input.ts),
// and the document says so with the pattern the other text fields carry.
const Pem = z
  .string()
  .min(1)
  .max(65_536)
  .openapi({ description: 'PEM text', pattern: `^[^${UNSAFE_CHARACTER_CLASS}]*$` });

const ClientCredential = z.strictObject({ certPem: Pem, keyPem: Pem });

/** Another responder to run the suite against: its HTTPS base URL and the TLS to reach it. */
export const TestTarget = z
  .strictObject({
    url: z
      .url({ protocol: /^https$/ })
      .max(2048)
      .openapi({ pattern: '^https://', example: 'https://vop.other-psp.example:8443' }),
    caPem: Pem.openapi({
      description: "The CA bundle the responder's server certificate chains to",
    }),
    clientCertificate: ClientCredential.openapi({
      description: 'The certificate to present: a participant of the responder’s scheme directory',
    }),
    nonParticipantCertificate: ClientCredential.optional().openapi({
      description: 'A certificate the responder trusts whose holder adheres to no scheme',
    }),
  })
  .openapi('TestTarget');
export type TestTarget = z.infer<typeof TestTarget>;

export const SchemeRunRequest = z
  .strictObject({
    testSuite: z.literal('scheme139-25'),
    generateReport: z.boolean().default(true),
    target: TestTarget.optional(),
  })
  .openapi('SchemeRunRequest');
export type SchemeRunRequest = z.infer<typeof SchemeRunRequest>;

export const TestRunStatus = z.enum(['running', 'completed', 'interrupted']);
export type TestRunStatus = z.infer<typeof TestRunStatus>;

export const SchemeRunAccepted = z
  .object({
    testRunId: z.uuid(),
    status: z.literal('running'),
    totalTests: z.number().int(),
    estimatedDuration: z.string().openapi({ example: '10s' }),
  })
  .openapi('SchemeRunAccepted');

const Percent = z
  .string()
  .regex(/^\d{1,3}\.\d%$/)
  .openapi({ example: '97.7%' });

export const TestCaseReport = z.object({
  id: z.string(),
  group: z.string(),
  description: z.string(),
  outcome: z.enum(['passed', 'failed', 'skipped']),
  expected: z.record(z.string(), z.unknown()),
  actual: z.object({ status: z.number().int().optional(), body: z.unknown().optional() }),
  failures: z.array(z.string()),
  durationMs: z.number(),
});

export const TestReport = z
  .object({
    testRunId: z.uuid(),
    testSuite: z.string(),
    status: TestRunStatus,
    target: z.string().openapi({ description: '`self`, or the origin of another responder' }),
    startedAt: z.string(),
    endedAt: z.string().optional(),
    interruption: z.string().optional(),
    referenceData: z
      .object({
        dataSet: z.string(),
        version: z.string(),
        accounts: z.number().int(),
        loaded: z.number().int(),
        alreadyPresent: z.number().int(),
      })
      .optional()
      .openapi({
        description:
          'A run against this deployment: the reference data it checked before its cases; `loaded` counts the accounts it opened itself (no load needed first)',
      }),
    summary: z.object({
      totalTests: z.number().int(),
      passed: z.number().int(),
      failed: z.number().int(),
      skipped: z.number().int(),
      compliance: Percent,
    }),
    compliance: z.object({ overall: Percent, byGroup: z.record(z.string(), Percent) }),
    cases: z.array(TestCaseReport),
  })
  .openapi('TestReport');

export const DataScenario = z.enum(['exact_match', 'no_match', 'close_match']);
export type DataScenario = z.infer<typeof DataScenario>;

export const GenerateDataRequest = z
  .strictObject({
    count: z.number().int().min(1).max(100),
    scenarios: z.array(DataScenario).min(1).max(3),
  })
  .openapi('GenerateDataRequest');

export const GeneratedTestCase = z.object({
  accountId: z.string().openapi({ example: 'acc_0b6c…' }),
  iban: z.string(),
  scenario: DataScenario,
  request: z.object({
    method: z.literal('POST'),
    path: z.string(),
    body: z.record(z.string(), z.unknown()),
  }),
  expected: z.object({
    partyNameMatch: z.enum(['MTCH', 'CMTC', 'NMTC']),
    matchedName: z.enum(['present', 'absent']),
  }),
});

export const GeneratedData = z
  .object({ count: z.number().int(), cases: z.array(GeneratedTestCase) })
  .openapi('GeneratedData');

/** Whole seconds with an s suffix, from `min` to 60 ("30s"); the pattern says it all. */
const Seconds = (min: 0 | 1) =>
  z
    .string()
    .regex(
      min === 0 ? /^([0-9]|[1-5][0-9]|60)s$/ : /^([1-9]|[1-5][0-9]|60)s$/,
      `seconds from ${min} to 60 with an s suffix, e.g. 30s`,
    );

/** At most 50 users for 60 s; a ramp-up longer than the run is cut to the run's length. */
export const LoadRunRequest = z
  .strictObject({
    concurrentUsers: z.number().int().min(1).max(50),
    duration: Seconds(1),
    rampUpTime: Seconds(0).default('0s'),
  })
  .openapi('LoadRunRequest');
export type LoadRunRequest = z.infer<typeof LoadRunRequest>;

export const LoadRunAccepted = z
  .object({
    loadRunId: z.uuid(),
    status: z.literal('running'),
    concurrentUsers: z.number().int(),
    duration: z.string(),
    rampUpTime: z.string(),
  })
  .openapi('LoadRunAccepted');

/** A load run's figures, or before any run the service's own traffic over the last minute. */
export const PerformanceMetrics = z
  .object({
    source: z.enum(['load-run', 'service']),
    loadRunId: z.uuid().optional(),
    status: z.enum(['running', 'completed', 'failed']).optional(),
    requestsPerSecond: z.number(),
    averageResponseTime: z.string().openapi({ example: '12 ms' }),
    successRate: Percent,
    activeConnections: z.number().int(),
    totalRequests: z.number().int(),
    startedAt: z.string().optional(),
    endedAt: z.string().optional(),
    since: z.string().optional().openapi({ description: "source service: the window's start" }),
  })
  .openapi('PerformanceMetrics');

export const CertificateDescription = z.object({
  role: z.enum(['root', 'server', 'client']),
  pem: z.string(),
  subject: z.string(),
  issuer: z.string(),
  serialNumber: z.string(),
  validFrom: z.string(),
  validTo: z.string(),
  fingerprint: z.string(),
});

export const CertificateChain = z
  .object({ certificates: z.array(CertificateDescription) })
  .openapi('CertificateChain');

export const CertificateScenario = z.enum([
  'valid_certificate',
  'expired_certificate',
  'invalid_chain',
]);

export const ValidateCertificatesRequest = z
  .strictObject({
    scenarios: z.array(CertificateScenario).min(1).max(3).optional(),
    certificatePem: Pem.optional().openapi({
      description:
        'Your own client certificate (and its issuers), to learn whether the edge accepts it',
    }),
  })
  .refine((body) => body.scenarios !== undefined || body.certificatePem !== undefined, {
    message: 'MISSING_FIELD',
    path: ['scenarios'],
  })
  // The refinement, said in the document: scenarios, a certificate, or both.
  .openapi('ValidateCertificatesRequest', {
    anyOf: [{ required: ['scenarios'] }, { required: ['certificatePem'] }],
  });

const Verdict = z.string().openapi({ example: 'refused: EXPIRED' });

export const CertificateValidation = z
  .object({
    results: z.array(
      z.object({
        scenario: CertificateScenario,
        expected: Verdict,
        actual: Verdict,
        passed: z.boolean(),
      }),
    ),
    submitted: z
      .object({
        accepted: z.boolean(),
        reason: z.string().optional(),
        participantId: z.string().optional(),
      })
      .optional(),
  })
  .openapi('CertificateValidation');

export const EnvironmentResetRequest = z
  .strictObject({ resetDatabase: z.boolean(), reloadTestData: z.boolean() })
  .openapi('EnvironmentResetRequest');

/** The versions shipped in packages/conformance/data/scheme_reference_data (a gateway test holds them equal). */
export const SCHEME_REFERENCE_DATA_VERSIONS = ['1.0.0'] as const;

/** The usual ways of writing each shipped version (`1.0.0`, `v1.0.0`, `1.0`, `1`), and `latest`. */
const versionSpellings = (): string[] => [
  'latest',
  ...SCHEME_REFERENCE_DATA_VERSIONS.flatMap((version) => {
    const [major, minor, patch] = version.split('.');
    return [
      version,
      `v${version}`,
      ...(patch === '0' ? [`${major}.${minor}`] : []),
      ...(patch === '0' && minor === '0' ? [`${major}`] : []),
    ];
  }),
];

export const DataLoadRequest = z
  .strictObject({
    dataSet: z.literal('scheme_reference_data'),
    // Checked by the route, which answers an unknown one with the versions it knows; the document lists
    // the spellings, so a version it allows is always one the route knows.
    version: z
      .string()
      .min(1)
      .max(32)
      .openapi({
        type: 'string',
        enum: versionSpellings(),
        description: `One of ${SCHEME_REFERENCE_DATA_VERSIONS.join(', ')}, or \`latest\`; \`1.0\` means \`1.0.0\``,
        example: 'latest',
      }),
  })
  .openapi('DataLoadRequest');

export const DataLoaded = z
  .object({
    dataSet: z.string(),
    version: z.string(),
    accounts: z.number().int(),
    loaded: z.number().int(),
    alreadyPresent: z.number().int(),
  })
  .openapi('DataLoaded');

export const EnvironmentReset = z
  .object({
    status: z.literal('reset'),
    accountsRemoved: z.number().int(),
    reloaded: DataLoaded.optional(),
  })
  .openapi('EnvironmentReset');
