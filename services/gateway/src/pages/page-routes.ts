import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errors, createRouter } from '@vop/http';
import { type Request, type Response, type Router } from 'express';

/** The pages' own files: services/gateway/pages (HTML, scripts, styles; nothing from a CDN). */
const PAGES_DIR = fileURLToPath(new URL('../../pages', import.meta.url));
/** Chart.js's browser build, served from node_modules. */
const CHART_JS = path.join(
  path.dirname(createRequire(import.meta.url).resolve('chart.js')),
  'chart.umd.min.js',
);

/**
 * Pages may run their own scripts and styles and call their own origin, nothing else: no inline
 * script or style, no other origin, not framed.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const ASSETS: Record<string, string> = {
  'pages.css': path.join(PAGES_DIR, 'assets/pages.css'),
  'api.js': path.join(PAGES_DIR, 'assets/api.js'),
  'admin.js': path.join(PAGES_DIR, 'assets/admin.js'),
  'stats.js': path.join(PAGES_DIR, 'assets/stats.js'),
  'test.js': path.join(PAGES_DIR, 'assets/test.js'),
  'chart.umd.min.js': CHART_JS,
};

function sendPage(res: Response, file: string): void {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  // Only files from the fixed table above (chart.js lives under node_modules/.pnpm).
  res.sendFile(file, { dotfiles: 'allow', lastModified: false });
}

const wantsHtml = (req: Request): boolean =>
  req.accepts(['application/json', 'text/html']) === 'text/html';

/**
 * The interactive pages (issue 10): /admin (dashboard), the HTML view of /admin/stats for a browser
 * (Accept: text/html; JSON callers reach the analytics route), and /test in test deployments. Mounted
 * before the forwarders, after authentication and authorization: the route-family table decides who
 * may open them (the admin certificate for /admin*, any participant for /test and the assets).
 */
export function pageRoutes(options: { testPage: boolean }): Router {
  const router = createRouter();
  router.get('/admin', (_req, res) => sendPage(res, path.join(PAGES_DIR, 'admin.html')));
  router.get('/admin/stats', (req, res, next) => {
    if (!wantsHtml(req)) return next();
    sendPage(res, path.join(PAGES_DIR, 'stats.html'));
  });
  if (options.testPage)
    router.get('/test', (_req, res) => sendPage(res, path.join(PAGES_DIR, 'test.html')));
  router.get('/assets/:file', (req, res, next) => {
    const file = ASSETS[String(req.params.file)];
    if (file === undefined) return next(errors.notFound('NOT_FOUND', 'No such file'));
    res.setHeader('Cache-Control', 'private, max-age=300');
    sendPage(res, file);
  });
  return router;
}
