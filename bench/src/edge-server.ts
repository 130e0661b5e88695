import https from 'node:https';
import express, { type Express, type Request, type Response } from 'express';
import { createHttpApp, createRouter, serverClassesFor } from '@vop/http';
import { createLogger } from '@vop/observability';
import { yardstickTls } from './yardstick-tls.js';

/**
 * One JSON endpoint, POST /vop/verify, behind a given HTTP stack, with the bare endpoint's TLS settings
 * (bare-server.ts): `express` (express.json and one route), `edge` (our edge, `createHttpApp`, with no
 * authentication in front). A `-born` suffix makes the server's requests and responses with the app's
 * prototypes (packages/http/src/express-prototypes.ts). Prints its port on stdout.
 */
const [stack, certPath, keyPath, caPath] = process.argv.slice(2);
if (!stack || !certPath || !keyPath || !caPath)
  throw new Error('usage: edge-server <express|edge>[-born] <cert.pem> <key.pem> <ca.pem>');

function answer(req: Request, res: Response): void {
  const body = req.body as { party?: { name?: string } } | undefined;
  res.json({ partyNameMatch: body?.party?.name ? 'MTCH' : 'NOAP' });
}

function appFor(name: string): Express {
  if (name === 'express') {
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.use(express.json());
    app.post('/vop/verify', answer);
    return app;
  }
  if (name === 'edge' || name === 'edge-direct') {
    const router = createRouter();
    router.post('/vop/verify', answer);
    return createHttpApp({
      routers: [router],
      respondingPsp: 'VOPBDEFFXXX',
      logger: createLogger({ service: 'edge-bench', level: 'warn' }),
      ...(name === 'edge-direct' && {
        directRoutes: [{ method: 'POST', path: '/vop/verify', handler: answer }],
      }),
    });
  }
  throw new Error(`unknown stack ${name}`);
}

const born = stack.endsWith('-born');
const app = appFor(born ? stack.slice(0, -'-born'.length) : stack);
const server = https.createServer(
  {
    ...(await yardstickTls(certPath, keyPath, caPath)),
    ...(born && serverClassesFor(app)),
  },
  app,
);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
