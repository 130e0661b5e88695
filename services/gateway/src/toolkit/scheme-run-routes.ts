import {
  loadReferenceData,
  referenceAccountProbes,
  runConformance,
  runSchemeSuite,
  SCHEME_SUITE_CASES,
  type CaseResult,
  type ConformanceCase,
  type ConnectionGuard,
  type SchemeFixture,
  type SchemeSuiteTarget,
} from '@vop/conformance';
import { SchemeRunRequest, z } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import { errors, parseBody, parseParam, requestMetadata, createRouter } from '@vop/http';
import type { Logger } from '@vop/observability';
import { type Router } from 'express';
import type { Sandbox } from './sandbox.js';
import type { DataLoaded } from './sandbox-data.js';
import { noSandbox, targetUnreachable, testExecutionFailed } from './test-execution-failed.js';
import type { RecordedAnswer } from './test-run-decider.js';
import {
  handleTestRunCommand,
  interruptUnfinishedRuns,
  testReport,
  testReportJunit,
} from './test-runs.js';

/** The first case: the reference person by her exact name, MTCH when the data set is loaded. */
const PROBE_CASE = SCHEME_SUITE_CASES[0];
/** How long a run against this deployment waits for its reference data to reach matching. */
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
 * How the runner connects: to a caller-named target through the address guard, its failures to
 * connect told apart in the log only; to this deployment's own loopback listener directly.
 */
interface Connection {
  guard?: ConnectionGuard;
  onUnreachable?: (cause: Error) => void;
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
  connection: Connection,
  logger: Logger,
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
      ...connection,
    });
    if (probe === undefined) return;
    if (probe.outcome === 'passed') {
      if (accounts.every((account) => account.outcome === 'passed')) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    if (probe.status === undefined) {
      // The same answer for a closed port, a port without TLS, a refused address and a timeout.
      if (!connection.guard) logger.warn({ failures: probe.failures }, 'test target unreachable');
      throw targetUnreachable();
    }
    if (probe.status === 401)
      throw testExecutionFailed(
        502,
        'The target refused the client certificate (401)',
        "Use a certificate of a participant in the responder's scheme directory, whose BIC is the data set's requesterBic",
      );
    if (Date.now() > waitUntil)
      throw connection.guard
        ? testExecutionFailed(
            409,
            `The reference data is not loaded at the target: ${probe.failures.join('; ')}`,
            'Load it there first (on this service: POST /test/data/load {"dataSet": "scheme_reference_data", "version": "latest"})',
          )
        : testExecutionFailed(
            409,
            `The reference data is not answered here yet: ${probe.failures.join('; ')}`,
            'Start the run again in a few seconds',
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
  /** Opens the reference accounts not yet held here (a run against this deployment itself). */
  loadReferenceData: (metadata: Record<string, string>) => Promise<DataLoaded>;
  instanceId: string;
  /** Judges where a caller-named `target` may be (VOP_TEST_TARGET_ALLOWED_NETWORKS). */
  targetGuard: ConnectionGuard;
}): SchemeRuns {
  const { store, logger, clock } = options;
  const router = createRouter();
  const running = new Map<string, Promise<void>>();
  let stopping = false;

  /** A caller-named target: guarded, each cause of an unreachable target logged (no names in it). */
  const guarded = (origin: string, testRunId: string): Connection => ({
    guard: options.targetGuard,
    onUnreachable: (cause) =>
      logger.warn({ err: cause, target: origin, testRunId }, 'test target unreachable'),
  });

  async function execute(
    testRunId: string,
    target: SchemeSuiteTarget,
    fixture: SchemeFixture,
    connection: Connection,
  ) {
    try {
      await runSchemeSuite({
        target,
        fixture,
        ...connection,
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
    let referenceData: DataLoaded | undefined;
    const connection = body.target ? guarded(new URL(body.target.url).origin, testRunId) : {};
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
      // A run against this deployment needs no load first: it opens what is missing, and says so.
      referenceData = body.target
        ? undefined
        : await options.loadReferenceData(requestMetadata(req));
      // Present here now (loaded above, by this instance or another): a miss is the copy's lag.
      const waitUntil = body.target ? 0 : Date.now() + DATA_VISIBLE_WITHIN_MS;
      await preflight(
        target,
        fixture,
        referenceAccountProbes(dataSet),
        waitUntil,
        connection,
        logger,
      );
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
          ...(referenceData && { referenceData }),
        },
      });
    } catch (error) {
      running.delete(testRunId);
      throw error;
    }
    running.set(
      testRunId,
      execute(testRunId, target, fixture, connection).finally(() => running.delete(testRunId)),
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
