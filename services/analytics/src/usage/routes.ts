import { createRouter } from '@vop/http';
import { MatchRatesQuery, UsageQuery } from '@vop/contracts';
import type { SqlClient } from '@vop/event-store';
import { type Router } from 'express';
import { matchRatesReport } from '../match-rates/query.js';
import { parseQuery, timeWindow } from '../query-parameters.js';
import { usageReport } from './query.js';

/** GET /analytics/usage and /analytics/match-rates (the analytics family: nested errors). */
export function analyticsRoutes(options: {
  sql: SqlClient;
  schema: string;
  clock: () => Date;
}): Router {
  const { sql, schema, clock } = options;
  const router = createRouter();
  router.get('/analytics/usage', async (req, res) => {
    const query = parseQuery(UsageQuery, req.query);
    const now = clock();
    res.json(
      await usageReport(sql, schema, {
        ...timeWindow(query, now),
        granularity: query.granularity,
        participant: query.participant,
        family: query.family,
        now,
      }),
    );
  });
  router.get('/analytics/match-rates', async (req, res) => {
    const query = parseQuery(MatchRatesQuery, req.query);
    res.json(
      await matchRatesReport(sql, schema, {
        ...timeWindow(query, clock()),
        granularity: query.granularity,
        participant: query.participant,
        holderType: query.holderType,
        byRespondingBank: query.by === 'responding_bank',
      }),
    );
  });
  return router;
}
