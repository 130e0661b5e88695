import { RecentVerificationsQuery, StatsQuery, type StatsResponse } from '@vop/contracts';
import type { SqlClient } from '@vop/event-store';
import { formatUptime, createRouter } from '@vop/http';
import type { FieldCipher } from '@vop/personal-data';
import { type Router } from 'express';
import { parseQuery } from '../query-parameters.js';
import { recentVerifications } from './recent-verifications.js';
import { periodStart, requestFigures, type RequestFigures } from './stats.js';

const shown = (figures: RequestFigures): StatsResponse['requests'] => ({
  total: figures.total,
  successful: figures.successful,
  failed: figures.failed,
  averageResponseTime: `${figures.averageResponseMs ?? 0} ms`,
});

/**
 * GET /admin/stats (`requests`: single checks; `batchEntries`: the entries of batches) and /admin/verifications (management, flat errors; the edge lets only the admin
 * certificate through and audits every call). Uptime is this analytics instance's, version the release's.
 */
export function adminFigureRoutes(options: {
  sql: SqlClient;
  schema: string;
  cipher: FieldCipher;
  clock: () => Date;
  version: string;
  startedAt: number;
}): Router {
  const { sql, schema, clock } = options;
  const router = createRouter();
  router.get('/admin/stats', async (req, res) => {
    const { period } = parseQuery(StatsQuery, req.query);
    const now = clock();
    const window = { from: periodStart(period, now), now };
    const [single, batch] = await Promise.all([
      requestFigures(sql, schema, window, 'single'),
      requestFigures(sql, schema, window, 'batch'),
    ]);
    const body: StatsResponse = {
      period,
      requests: shown(single),
      batchEntries: shown(batch),
      uptime: formatUptime(Date.now() - options.startedAt),
      version: options.version,
    };
    res.json(body);
  });
  router.get('/admin/verifications', async (req, res) => {
    const query = parseQuery(RecentVerificationsQuery, req.query);
    res.json(
      await recentVerifications(sql, schema, options.cipher, {
        limit: query.limit,
        failedOnly: query.status === 'failed',
        now: clock(),
      }),
    );
  });
  return router;
}
