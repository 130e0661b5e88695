import type { Request, Response } from 'express';
import { canonicalPath } from './base-paths.js';
import type { ApiError } from './errors.js';

/** The gateway's pages (services/gateway/src/pages): a browser opening one is answered a page. */
export const PAGE_PATHS: ReadonlySet<string> = new Set(['/admin', '/admin/stats', '/test']);

/** A page's refusal loads nothing: no script, style or image. */
const REFUSAL_CSP =
  "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A browser opening a page (it asks for HTML before JSON); an API client asks for JSON. */
export function isPageNavigation(req: Request): boolean {
  return (
    (req.method === 'GET' || req.method === 'HEAD') &&
    // originalUrl: inside a mounted router req.path has lost its mount point.
    PAGE_PATHS.has(canonicalPath(req.originalUrl.split('?')[0] ?? '')) &&
    req.accepts(['application/json', 'text/html']) === 'text/html'
  );
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (character) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] ??
      character,
  );

const ADVICE: Record<number, string> = {
  401: 'Open it with a client certificate in the browser (the development PKI writes PKCS#12 files for one).',
  403: 'This page is not for the certificate your browser presented; open it with one it is for.',
  404: 'There is no such page here.',
};

/** Refuses a page as a page: the status and the reason in HTML, a link only to what anyone may open. */
export function sendRefusalPage(res: Response, status: number, error: ApiError): void {
  const title = `${status} ${error.code}`;
  const advice = ADVICE[status] ?? 'Try again later.';
  res.setHeader('Content-Security-Policy', REFUSAL_CSP);
  res
    .status(status)
    .type('html')
    .send(
      `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)} — Payee Verification</title></head>
<body>
<h1>${escapeHtml(title)}</h1>
<p id="refusal-message">${escapeHtml(error.message)}</p>
<p>${escapeHtml(advice)}</p>
<p><a href="/docs">API documentation</a></p>
</body>
</html>
`,
    );
}
