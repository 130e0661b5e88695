import { createRequire } from 'node:module';
import path from 'node:path';
import { servedApiDocument, createRouter } from '@vop/http';
import express, { type Router } from 'express';

// The docs page runs swagger-ui from its npm package, served by us: no CDN. It sets some inline styles,
// hence 'unsafe-inline' for styles only; scripts are our own files.
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

const swaggerUiDir = path.dirname(
  createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
);

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Payee Verification Service API</title>
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
<div id="api"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/start.js"></script>
</body>
</html>
`;

// Relative URLs: the page works under every base path (/, /v1, /vop/api/v1).
const START_SCRIPT = `window.SwaggerUIBundle({ url: 'openapi.json', dom_id: '#api', deepLinking: true });\n`;

/**
 * `GET /openapi.json` (generated from the zod contracts and the route-family table, a live
 * deployment's without what only a test deployment serves) and `GET /docs`.
 */
export function apiDocumentRoutes(version: string, environment: 'test' | 'live'): Router {
  const document = JSON.stringify(servedApiDocument(version, { environment }));
  const router = createRouter();
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(document);
  });
  router.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.type('text/html').send(DOCS_PAGE);
  });
  router.get('/docs/start.js', (_req, res) => {
    res.type('application/javascript').send(START_SCRIPT);
  });
  router.use(
    '/docs/assets',
    (_req, res, next) => {
      res.setHeader('Content-Security-Policy', DOCS_CSP);
      next();
    },
    express.static(swaggerUiDir, { index: false, fallthrough: false, dotfiles: 'deny' }),
  );
  return router;
}
