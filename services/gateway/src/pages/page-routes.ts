import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errors, createRouter, principalOf } from '@vop/http';
import { type Request, type Response, type Router } from 'express';
import { NAVIGATION_SLOT, navigationFor, navigationHtml } from './page-navigation.js';

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

function sendAsset(res: Response, file: string): void {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  // Only files from the fixed table above (chart.js lives under node_modules/.pnpm).
  res.sendFile(file, { dotfiles: 'allow', lastModified: false });
}

const pageTexts = new Map<string, Promise<string>>();

/** A page with the links its viewer may open in its <nav> (page-navigation.ts). */
async function sendPage(
  req: Request,
  res: Response,
  page: 'admin' | 'stats' | 'test',
  testPage: boolean,
): Promise<void> {
  let text = pageTexts.get(page);
  if (text === undefined) {
    text = readFile(path.join(PAGES_DIR, `${page}.html`), 'utf8');
    pageTexts.set(page, text);
  }
  const links = navigationFor(principalOf(res), { testPage, current: req.path });
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.type('html').send((await text).replace(NAVIGATION_SLOT, navigationHtml(links)));
}

const wantsHtml = (req: Request): boolean =>
  req.accepts(['application/json', 'text/html']) === 'text/html';

/**
 * The interactive pages (issue 10): /admin (dashboard), the HTML view of /admin/stats for a browser
 * (Accept: text/html; JSON callers reach the analytics route), and /test in test deployments. Mounted
 * before the forwarders, after authentication and authorization: the route-family table decides who
 * may open them (the admin certificate for /admin*, any participant for /test and the assets); the
 * test page, which checks payees as a participant's customer, refuses the admin certificate
 * besides. Each page links only where its viewer may go; a refusal of a page is a page (@vop/http
 * refusal-page.ts).
 */
export function pageRoutes(options: { testPage: boolean }): Router {
  const router = createRouter();
  const { testPage } = options;
  router.get('/admin', (req, res) => sendPage(req, res, 'admin', testPage));
  router.get('/admin/stats', async (req, res, next) => {
    if (!wantsHtml(req)) return next();
    await sendPage(req, res, 'stats', testPage);
  });
  if (testPage)
    router.get('/test', async (req, res) => {
      const principal = principalOf(res);
      // The page checks payees as a participant's customers do; the admin certificate is no participant.
      if (principal?.kind === 'certificate' && principal.admin)
        throw errors.accessDenied(
          "The test page verifies as a scheme participant's customer; the admin certificate is no participant: use a participant's",
        );
      await sendPage(req, res, 'test', testPage);
    });
  router.get('/assets/:file', (req, res, next) => {
    const file = ASSETS[String(req.params.file)];
    if (file === undefined) return next(errors.notFound('NOT_FOUND', 'No such file'));
    res.setHeader('Cache-Control', 'private, max-age=300');
    sendAsset(res, file);
  });
  return router;
}
