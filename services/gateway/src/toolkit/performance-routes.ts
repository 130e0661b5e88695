import { loadReferenceData } from '@vop/conformance';
import { LoadRunRequest } from '@vop/contracts';
import { parseBody, createRouter } from '@vop/http';
import type { ServiceMetrics } from '@vop/observability';
import { type Router } from 'express';
import { LoadRun } from './load-run.js';
import type { Sandbox } from './sandbox.js';
import { openConnections, serviceFigures } from './service-figures.js';
import { noSandbox, testExecutionFailed } from './test-execution-failed.js';

const seconds = (value: string): number => Number(value.slice(0, -1));

/**
 * POST /test/performance/load and GET /test/performance/metrics: one bounded run at a time
 * (at most 50 users for 60 s), only against this service's own loopback listener. The metrics are
 * the current or last run's, or before any run the service's own traffic.
 */
export function performanceRoutes(options: {
  sandbox: Sandbox | undefined;
  /** The service's HTTP metrics: the figures before any load run. */
  metrics: ServiceMetrics | undefined;
  clock: () => Date;
  newId: () => string;
}): { router: Router; stop(): Promise<void> } {
  const router = createRouter();
  const figures = serviceFigures({ metrics: options.metrics, clock: options.clock });
  let last: LoadRun | undefined;

  router.post('/test/performance/load', async (req, res) => {
    const body = parseBody(LoadRunRequest, req.body);
    if (options.sandbox === undefined) throw noSandbox();
    if (last?.running)
      throw testExecutionFailed(
        409,
        'A load run is already running',
        'Wait for it to end (GET /test/performance/metrics shows its status), then start another',
      );
    const [target, { fixture }] = await Promise.all([
      options.sandbox.target(),
      loadReferenceData(),
    ]);
    const loadRunId = options.newId();
    const durationSeconds = seconds(body.duration);
    const rampUpSeconds = Math.min(seconds(body.rampUpTime), durationSeconds);
    last = new LoadRun(
      {
        loadRunId,
        concurrentUsers: body.concurrentUsers,
        durationSeconds,
        rampUpSeconds,
        body: {
          party: { name: fixture.person.name },
          partyAccount: { iban: fixture.person.iban },
          partyAgent: { financialInstitutionId: { bicfi: fixture.responderBic } },
          requestingAgent: { financialInstitutionId: { bicfi: fixture.requesterBic } },
        },
      },
      target,
      options.clock,
    );
    res.status(202).json({
      loadRunId,
      status: 'running',
      concurrentUsers: body.concurrentUsers,
      duration: body.duration,
      rampUpTime: `${rampUpSeconds}s`,
    });
  });

  router.get('/test/performance/metrics', async (req, res) => {
    if (last === undefined) {
      res.json(await figures(await openConnections(req.socket)));
      return;
    }
    res.json({ source: 'load-run', ...last.figures() });
  });

  return {
    router,
    async stop() {
      await last?.stop();
    },
  };
}
