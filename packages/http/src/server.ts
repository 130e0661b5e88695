import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import type { Express } from 'express';
import { serverClassesFor } from './express-prototypes.js';
import { LONGEST_DEADLINE_MS } from './route-families.js';

export interface ServerHandler {
  /** An Express app gets requests and responses born with its prototypes (express-prototypes.ts). */
  handler: RequestListener | Express;
  /** The Express app a wrapping handler hands its requests to, for the same prototypes. */
  app?: Express;
}

export interface HttpsServerOptions extends ServerHandler {
  host: string;
  port: number;
  certPem: string;
  keyPem: string;
  /**
   * Trust anchors for client certificates. The server always asks for one and lets the handshake complete either
   * way, so the application can answer a missing or refused certificate in the path's error format.
   */
  caPem: string;
}

export interface RunningServer {
  server: https.Server | http.Server;
  url: string;
  close(): Promise<void>;
}

/**
 * A whole request must arrive within this: the longest family deadline (a streamed bulk upload) plus a
 * margin; each family's own deadline, shorter, cuts a slow body first (see app.ts).
 */
const REQUEST_TIMEOUT_MS = LONGEST_DEADLINE_MS + 15_000;

/** HTTPS only, TLS 1.3, with the server's own limits against slow and oversized requests. */
export async function startHttpsServer(options: HttpsServerOptions): Promise<RunningServer> {
  const server = https.createServer(
    {
      cert: options.certPem,
      key: options.keyPem,
      minVersion: 'TLSv1.3',
      ca: options.caPem,
      requestCert: true,
      rejectUnauthorized: false,
      headersTimeout: 10_000,
      requestTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: 65_000,
      maxHeaderSize: 16_384,
      ...serverClassesFor(options.app ?? options.handler),
    },
    options.handler,
  );
  server.maxHeadersCount = 100;
  server.maxRequestsPerSocket = 0;
  return listen(server, 'https', options);
}

/**
 * Plain HTTP for a service's internal listener: reached only from inside the deployment (the edge
 * forwards to it with a signed principal), and for probes.
 */
export async function startHttpServer(
  options: ServerHandler & { host: string; port: number },
): Promise<RunningServer> {
  const server = http.createServer(
    {
      headersTimeout: 10_000,
      requestTimeout: 15_000,
      keepAliveTimeout: 65_000,
      ...serverClassesFor(options.app ?? options.handler),
    },
    options.handler,
  );
  return listen(server, 'http', options);
}

async function listen(
  server: https.Server | http.Server,
  scheme: 'http' | 'https',
  at: { host: string; port: number },
): Promise<RunningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    server,
    url: `${scheme}://${at.host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
