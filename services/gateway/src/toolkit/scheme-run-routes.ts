import {
  loadReferenceData,
  referenceAccountProbes,
  runConformance,
  runSchemeSuite,
  SCHEME_SUITE_CASES,
  type CaseResult,
  type ConformanceCase,
  type SchemeFixture,
  type SchemeSuiteTarget,
} from '@vop/conformance';
import { SchemeRunRequest, z } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import { errors, parseBody, parseParam } from '@vop/http';
import type { Logger } from '@vop/observability';
import { Router } from 'express';
import type { Sandbox } from './sandbox.js';
import { noSandbox, testExecutionFailed } from './test-execution-failed.js';
import type { RecordedAnswer } from './test-run-decider.js';
import {
  handleTestRunCommand,
  interruptUnfinishedRuns,
  testReport,
  testReportJunit,
} from './test-runs.js';

/** The first case: the reference person by her exact name, MTCH when the data set is loaded. */
const PROBE_CASE = SCHEME_SUITE_CASES[0];
/** How long after a load here a start waits for the reference data to reach matching. */
export const DATA_VISIBLE_WITHIN_MS = 10_000;
/** Per case on a loaded two-core machine, measured: 131 cases in about 6 s. */
const ESTIMATED_MS_PER_CASE = 75;

export interface SchemeRuns {
  router: Router;
  /** Stops taking cases; runs cut off here are marked interrupted at the next start. */
  stop(): Promise<void>;
}

function answerOf(result: CaseResult): RecordedAnswer {
  const body = (result.body ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const partyNameMatch = text(body.partyNameMatch);
  const partyIdMatch = text(body.partyIdMatch);
  const code = text(body.code);
  return {
    ...(result.status !== undefined && { status: result.status }),
    ...(partyNameMatch && { partyNameMatch }),
    ...(partyIdMatch && { partyIdMatch }),
    ...(body.matchedName !== undefined && { matchedName: 'present' as const }),
    ...(code && { code }),
  };
}

/**
 * Before a run: the target answers over mutual TLS and holds the reference data (the first case
 * passes). Data loaded here moments ago is still on its way to the deciding copy of the accounts:
 * until `waitUntil` (ms since the epoch) the first case and every account's probe
 * (`accountProbes`) are tried again, since each account arrives in its own time.
 */
async function preflight(
  target: SchemeSuiteTarget,
  fixture: SchemeFixture,
  accountProbes: readonly ConformanceCase[],
  waitUntil: number,
): Promise<void> {
  if (PROBE_CASE === undefined) return;
  for (;;) {
    const loadedMomentsAgo = Date.now() <= waitUntil;
    const [probe, ...accounts] = await runConformance({
      baseUrl: target.baseUrl,
      caPem: target.caPem,
      credentials: { participant: target.participant },
      fixture,
      cases: [PROBE_CASE, ...(loadedMomentsAgo ? accountProbes : [])],
    });
    if (probe === undefined) return;
    if (probe.outcome === 'passed') {
      if (accounts.every((account) => account.outcome === 'passed')) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    if (probe.status === undefined)
      throw testExecutionFailed(
        502,
        `The target could not be reached: ${probe.failures.join('; ')}`,
        "Check the URL, that caPem signs the responder's server certificate, and that it accepts your client certificate",
      );
    if (probe.status === 401)
      throw testExecutionFailed(
        502,
        'The target refused the client certificate (401)',
        "Use a certificate of a participant in the responder's scheme directory, whose BIC is the data set's requesterBic",
      );
    if (Date.now() > waitUntil)
      throw testExecutionFailed(
        409,
        `The reference data is not loaded at the target: ${probe.failures.join('; ')}`,
        'Load it first: POST /test/data/load {"dataSet": "scheme_reference_data", "version": "1.0.0"}',
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export function schemeRunRoutes(options: {
  store: EventStore;
  sandbox: Sandbox | undefined;
  logger: Logger;
  clock: () => Date;
  newId: () => string;
  /** When reference data was last loaded through this instance (ms since the epoch, 0: never). */
  referenceDataLoadedAt: () => number;
  instanceId: string;
}): SchemeRuns {
  const { store, logger, clock } = options;
  const router = Router();
  const running = new Map<string, Promise<void>>();
  let stopping = false;

  async function execute(testRunId: string, target: SchemeSuiteTarget, fixture: SchemeFixture) {
    try {
      await runSchemeSuite({
        target,
        fixture,
        onCase: async (result) => {
          if (stopping) throw new Error('the service is stopping');
          await handleTestRunCommand(store, {
            type: 'RecordTestCase',
            data: {
              testRunId,
              caseId: result.id,
              group: result.group,
              description: result.description,
              outcome: result.outcome,
              expected: {
                ...(SCHEME_SUITE_CASES.find((each) => each.id === result.id)?.expect ?? {}),
              },
              actual: answerOf(result),
              failures: result.failures,
              durationMs: result.durationMs,
              recordedAt: clock().toISOString(),
            },
          });
        },
      });
      await handleTestRunCommand(store, {
        type: 'CompleteTestRun',
        testRunId,
        now: clock().toISOString(),
      });
    } catch (error) {
      if (stopping) return;
      logger.warn({ err: error, testRunId }, 'test run failed');
      await handleTestRunCommand(store, {
        type: 'InterruptTestRun',
        testRunId,
        now: clock().toISOString(),
        reason: `the run failed: ${(error as Error).message}`,
      }).catch(() => undefined);
    }
  }

  router.post('/test/scheme/run', async (req, res) => {
    const body = parseBody(SchemeRunRequest, req.body);
    if (stopping) throw errors.unavailable('The service is stopping');
    // One run at a time per instance: runs side by side would each slow the other.
    const [current] = running.keys();
    if (current !== undefined)
      throw testExecutionFailed(
        409,
        `Test run ${current} is running`,
        `Wait for it to end (GET /test/scheme/report/${current}), then start another`,
      );
    if (body.target === undefined && options.sandbox === undefined) throw noSandbox();
    const testRunId = options.newId();
    const totalTests = SCHEME_SUITE_CASES.length;
    // Held from here on, so two starts at once cannot both pass the check above.
    running.set(testRunId, Promise.resolve());
    let target: SchemeSuiteTarget;
    let fixture: SchemeFixture;
    try {
      target = body.target
        ? {
            baseUrl: body.target.url,
            caPem: body.target.caPem,
            participant: body.target.clientCertificate,
            ...(body.target.nonParticipantCertificate && {
              nonParticipant: body.target.nonParticipantCertificate,
            }),
          }
        : await (options.sandbox as Sandbox).target();
      const dataSet = await loadReferenceData();
      fixture = dataSet.fixture;
      const waitUntil = body.target ? 0 : options.referenceDataLoadedAt() + DATA_VISIBLE_WITHIN_MS;
      await preflight(target, fixture, referenceAccountProbes(dataSet), waitUntil);
      await handleTestRunCommand(store, {
        type: 'StartTestRun',
        data: {
          testRunId,
          testSuite: body.testSuite,
          totalTests,
          target: body.target ? new URL(body.target.url).origin : 'self',
          generateReport: body.generateReport,
          startedAt: clock().toISOString(),
          instanceId: options.instanceId,
        },
      });
    } catch (error) {
      running.delete(testRunId);
      throw error;
    }
    running.set(
      testRunId,
      execute(testRunId, target, fixture).finally(() => running.delete(testRunId)),
    );
    res.status(202).json({
      testRunId,
      status: 'running',
      totalTests,
      estimatedDuration: `${Math.ceil((totalTests * ESTIMATED_MS_PER_CASE) / 1000)}s`,
    });
  });

  router.get('/test/scheme/report/:testRunId', async (req, res) => {
    const notFound = () => errors.notFound('TEST_RUN_NOT_FOUND', 'No such test run');
    const testRunId = parseParam(z.uuid(), req.params.testRunId, notFound);
    // A run whose instance died reads interrupted once it has been silent long enough.
    await interruptUnfinishedRuns(store, { now: clock() });
    const report = await testReport(store, testRunId);
    if (report === undefined) throw notFound();
    if (req.query.format === 'junit') {
      if (!report.generateReport)
        throw testExecutionFailed(
          404,
          'This run was started without a report',
          'Start a run with "generateReport": true to get its cases and JUnit XML',
        );
      res.type('application/xml').send(testReportJunit(report));
      return;
    }
    const { generateReport, ...view } = report;
    res.json(generateReport ? view : { ...view, cases: [] });
  });

  return {
    router,
    async stop() {
      stopping = true;
      await Promise.all([...running.values()]);
    },
  };
}
