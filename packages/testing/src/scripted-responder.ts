import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createCertificateAuthority, issueCertificate, type PemPair } from '@vop/pki';

/** What the responder does with the next requests, until scripted otherwise. */
export type ResponderScript =
  /** 200 with this JSON body. */
  | { kind: 'answer'; body: unknown }
  /** This status with this JSON body (e.g. 500 with a VerificationOfPayeeError). */
  | { kind: 'status'; status: number; body?: unknown }
  /** 200 with this body after `afterMs`. */
  | { kind: 'slow'; afterMs: number; body: unknown }
  /** 200 with a body that is not JSON. */
  | { kind: 'malformed' }
  /** Reads the request and never answers. */
  | { kind: 'silent' }
  /** Reads the request and drops the connection without an answer. */
  | { kind: 'drop' };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, or the text when it is not JSON. */
  body: unknown;
  clientCertificate: { commonName?: string; organizationIdentifier?: string } | undefined;
  /** The negotiated protocol, e.g. TLSv1.3. */
  tlsVersion: string | null;
}

export interface ScriptedResponderOptions {
  /** Issues the server certificate (127.0.0.1, localhost) and is the only anchor for clients. */
  ca: PemPair;
  script?: ResponderScript;
}

/** An EPC responder for tests that misbehaves on demand; it records everything it received. */
export interface ScriptedResponder {
  /** The API base to list as an endpoint: POST `${uri}/payee-verifications`. */
  readonly uri: string;
  readonly port: number;
  script(next: ResponderScript): void;
  requests(): readonly RecordedRequest[];
  clearRequests(): void;
  /** TLS connections open now (a client that gave up must not leave one hanging). */
  openConnections(): number;
  /** Presents this certificate from the next connection on; open connections are closed. */
  presentCertificate(pair: PemPair): Promise<void>;
  /** Presents a certificate for 127.0.0.1 from a CA nobody trusts. */
  presentForeignCertificate(): Promise<void>;
  /** Back to the certificate from the given CA. */
  presentOwnCertificate(): Promise<void>;
  /** Closes the port: connections are refused until `acceptConnections`. */
  refuseConnections(): Promise<void>;
  acceptConnections(): Promise<void>;
  close(): Promise<void>;
}

export async function startScriptedResponder(
  options: ScriptedResponderOptions,
): Promise<ScriptedResponder> {
  const own = await issueCertificate(options.ca, {
    commonName: 'scripted-responder',
    usage: 'server',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
  });
  let script: ResponderScript = options.script ?? { kind: 'answer', body: {} };
  const recorded: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const server = https.createServer(
    {
      cert: own.certPem,
      key: own.keyPem,
      ca: options.ca.certPem,
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
    },
    (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        recorded.push({
          method: request.method ?? '',
          path: request.url ?? '',
          headers: { ...request.headers },
          body: parsedOrText(text),
          clientCertificate: peerSubject(request.socket as TLSSocket),
          tlsVersion: (request.socket as TLSSocket).getProtocol(),
        });
        answer(script, response);
      });
    },
  );
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  function answer(current: ResponderScript, response: ServerResponse): void {
    const json = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    switch (current.kind) {
      case 'answer':
        return json(200, current.body);
      case 'status':
        return json(current.status, current.body ?? {});
      case 'malformed':
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"partyNameMatch": MTCH');
        return;
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!response.destroyed) json(200, current.body);
        }, current.afterMs);
        timers.add(timer);
        return;
      }
      case 'silent':
        return;
      case 'drop':
        response.socket?.destroy();
        return;
    }
  }

  const listen = async (port: number) => {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };
  /**
   * Closes every connection and gives the event loop turns, so a client in this process notices the
   * close before its next request (a pooled connection would otherwise meet a closed socket).
   */
  const dropConnections = async () => {
    const closed = [...sockets].map((socket) => once(socket, 'close'));
    for (const socket of sockets) socket.destroy();
    await Promise.all(closed);
    for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  };
  const port = await listen(0);

  const present = async (pair: PemPair) => {
    server.setSecureContext({ cert: pair.certPem, key: pair.keyPem, ca: options.ca.certPem });
    await dropConnections();
  };

  return {
    uri: `https://127.0.0.1:${port}/vop/v1`,
    port,
    script: (next) => {
      script = next;
    },
    requests: () => [...recorded],
    clearRequests: () => {
      recorded.length = 0;
    },
    openConnections: () => sockets.size,
    presentCertificate: present,
    presentForeignCertificate: async () => {
      const foreign = await createCertificateAuthority({ commonName: 'Foreign CA' });
      await present(
        await issueCertificate(foreign, {
          commonName: 'scripted-responder',
          usage: 'server',
          dnsNames: ['localhost'],
          ipAddresses: ['127.0.0.1'],
        }),
      );
    },
    presentOwnCertificate: () => present(own),
    refuseConnections: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await dropConnections();
      await closed;
    },
    acceptConnections: async () => {
      await listen(port);
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      if (!server.listening) return dropConnections();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await dropConnections();
      await closed;
    },
  };
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function peerSubject(socket: TLSSocket): RecordedRequest['clientCertificate'] {
  const certificate = socket.getPeerCertificate();
  if (certificate === null || Object.keys(certificate).length === 0) return undefined;
  // Node names OID 2.5.4.97 by OpenSSL's long name.
  const subject = certificate.subject as unknown as Record<string, string | undefined>;
  return {
    ...(subject['CN'] !== undefined && { commonName: subject['CN'] }),
    ...(subject['organizationIdentifier'] !== undefined && {
      organizationIdentifier: subject['organizationIdentifier'],
    }),
  };
}
