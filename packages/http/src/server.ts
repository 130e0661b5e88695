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
  /** What a connection may hold and for how long; unset ones keep DEFAULT_CONNECTION_LIMITS. */
  limits?: Partial<ConnectionLimits>;
}

/**
 * What one connection may hold of a listener, and for how long, when it sends nothing: no timer here
 * cuts a request in flight (its family's deadline and the request timeout do, see app.ts).
 */
export interface ConnectionLimits {
  /** TLS only: a connection that has not finished its handshake within this is closed. */
  handshakeTimeoutMs: number;
  /**
   * A request's headers must have arrived within this of its first byte; the first request's within
   * this of the connection (of the handshake's end on TLS), so a connection that sends nothing closes.
   */
  headersTimeoutMs: number;
  /** A keep-alive connection with no request in flight is closed after this (Node adds 1 s). */
  idleTimeoutMs: number;
  /** Connections open at once (VOP_MAX_CONNECTIONS); one more is closed as it arrives. */
  maxConnections: number;
}

/**
 * - A TLS 1.3 handshake is one round trip: 10 s covers a slow link; a socket that never speaks TLS
 *   gives its place back.
 * - 10 s for a request's headers: a client sends them in one write.
 * - 30 s idle between requests: under load a bank's client reuses a connection within milliseconds and
 *   a quieter one keeps it across pauses of seconds; an abandoned one frees its place in half a minute.
 * - 4,096 connections per process: 2,000 checks/s at ~25 ms keep ~50 requests in flight; the rest are
 *   the idle keep-alive pools of many banks, a few connections each. An idle TLS connection holds tens
 *   of KB, so the cap bounds them to a few hundred MB of a 2-core box; more would add no throughput.
 */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  handshakeTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  idleTimeoutMs: 30_000,
  maxConnections: 4096,
};

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
 * margin; each family's own deadline, shorter, cuts a slow body first (see app.ts). The internal
 * listener has the same: a forwarded upload streams in as slowly as the caller sends it.
 */
const REQUEST_TIMEOUT_MS = LONGEST_DEADLINE_MS + 15_000;

/** The node:http options of the limits, shared by both listeners. */
function httpLimits(limits: ConnectionLimits): http.ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: limits.idleTimeoutMs,
    // How often node looks for connections past their headers or request timeout (default 30 s).
    connectionsCheckingInterval: Math.min(1_000, Math.max(10, limits.headersTimeoutMs / 4)),
  };
}

/** HTTPS only, TLS 1.3, with the server's own limits against slow and oversized requests. */
export async function startHttpsServer(options: HttpsServerOptions): Promise<RunningServer> {
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  const server = https.createServer(
    {
      cert: options.certPem,
      key: options.keyPem,
      minVersion: 'TLSv1.3',
      ca: options.caPem,
      requestCert: true,
      rejectUnauthorized: false,
      handshakeTimeout: limits.handshakeTimeoutMs,
      ...httpLimits(limits),
      maxHeaderSize: 16_384,
      ...serverClassesFor(options.app ?? options.handler),
    },
    options.handler,
  );
  server.maxHeadersCount = 100;
  server.maxRequestsPerSocket = 0;
  server.maxConnections = limits.maxConnections;
  return listen(server, 'https', options);
}

/**
 * Plain HTTP for a service's internal listener: reached only from inside the deployment (the edge
 * forwards to it with a signed principal), and for probes.
 */
export async function startHttpServer(
  options: ServerHandler & { host: string; port: number },
): Promise<RunningServer> {
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  const server = http.createServer(
    { ...httpLimits(limits), ...serverClassesFor(options.app ?? options.handler) },
    options.handler,
  );
  server.maxConnections = limits.maxConnections;
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
