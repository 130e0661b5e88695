import { type RequestHandler, type Router } from 'express';
import { type Principal, principalOf } from './principal.js';
import { createRouter } from './router.js';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

/** Liveness (no dependencies), readiness (dependencies answer) and the specification's health record. */
export function opsRoutes(options: {
  version: string;
  startedAt: number;
  checks: ReadinessCheck[];
  isShuttingDown: () => boolean;
  metrics?: RequestHandler;
  /** GET /health/detailed: the report it answers with (the edge lets only the admin through). */
  detailed?: { report: (principal: Principal | undefined) => Promise<object> };
}): Router {
  const router = createRouter();
  if (options.metrics) router.get('/metrics', options.metrics);
  router.get('/livez', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      options.checks.map(async ({ name, check }) => {
        try {
          await check();
          return { name, ok: true };
        } catch {
          return { name, ok: false };
        }
      }),
    );
    const ready = !options.isShuttingDown() && results.every((result) => result.ok);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks: results });
  });
  router.get('/health', (_req, res) => {
    res.json({
      status: 'healthy',
      uptime: formatUptime(Date.now() - options.startedAt),
      version: options.version,
    });
  });
  if (options.detailed) {
    const { report } = options.detailed;
    router.get('/health/detailed', async (_req, res) => {
      res.json(await report(principalOf(res)));
    });
  }
  return router;
}

export function formatUptime(milliseconds: number): string {
  const seconds = Math.floor(milliseconds / 1000);
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return `${days}d ${hours}h ${minutes}m ${seconds % 60}s`;
}
