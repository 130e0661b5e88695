import assert from 'node:assert/strict';
import { once } from 'node:events';
import https from 'node:https';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { after, describe, it } from 'node:test';
import {
  startHttpServer,
  startHttpsServer,
  type ConnectionLimits,
  type RunningServer,
} from './server.js';

/** A throwaway self-signed P-256 certificate for 127.0.0.1 tests only (the client trusts anything). */
const CERT_PEM = `-----BEGIN CERTIFICATE-----
MIIBkzCCATmgAwIBAgIURQdO5UhX64aCFnigC8jggo5kc9EwCgYIKoZIzj0EAwIw
HjEcMBoGA1UEAwwTc2VydmVyLXRlc3QuaW52YWxpZDAgFw0yNjExMjkwNDA1NDNa
GA8yMTI2MTEwNTA0MDU0M1owHjEcMBoGA1UEAwwTc2VydmVyLXRlc3QuaW52YWxp
ZDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABFROcD7Igkayl1GSiJH9/i3J7lYK
7Rd3LxZDZmWeqzOYPxothasJwmbgRL7FyjD6n6jxP44F6CYs4R7hUsZvBAqjUzBR
MB0GA1UdDgQWBBR2GbJOSMAhnhKUS4notmWga4Uy+DAfBgNVHSMEGDAWgBR2GbJO
SMAhnhKUS4notmWga4Uy+DAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gA
MEUCIFOZ1oNqyCzubHb8dk+JTmXKoEm7MldaG9y9NV2FF1ZZAiEAisZUgY1tFKru
RFlZ04eb34m26nImTgNZ/fqAG/WRWWg=
-----END CERTIFICATE-----
`;
const KEY_PEM = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgwrJFKJJRxKj3iJss
YxjO7p3SImIyA3MTHKFS756vkoihRANCAARUTnA+yIJGspdRkoiR/f4tye5WCu0X
dy8WQ2ZlnqszmD8aLYWrCcJm4ES+xcow+p+o8T+OBegmLOEe4VLGbwQK
-----END PRIVATE KEY-----
`;

/** Small enough that a connection left alone is closed during the test; closure is awaited, not timed. */
const SHORT: Partial<ConnectionLimits> = {
  handshakeTimeoutMs: 200,
  headersTimeoutMs: 200,
  idleTimeoutMs: 100,
};

/** Answers every request with the number of body bytes it read. */
const countBytes: http.RequestListener = (req, res) => {
  let bytes = 0;
  req.on('data', (chunk: Buffer) => (bytes += chunk.length));
  req.on('end', () => res.end(String(bytes)));
};

type Kind = 'https' | 'http';
const started: RunningServer[] = [];
const sockets: net.Socket[] = [];

async function serve(kind: Kind, limits: Partial<ConnectionLimits>): Promise<RunningServer> {
  const at = { handler: countBytes, host: '127.0.0.1', port: 0, limits };
  const server =
    kind === 'https'
      ? await startHttpsServer({ ...at, certPem: CERT_PEM, keyPem: KEY_PEM, caPem: CERT_PEM })
      : await startHttpServer(at);
  started.push(server);
  return server;
}

const portOf = (server: RunningServer) => (server.server.address() as net.AddressInfo).port;

/** A connection ready to carry HTTP: TCP connected, and on HTTPS its TLS handshake finished. */
async function connect(kind: Kind, server: RunningServer): Promise<net.Socket> {
  const port = portOf(server);
  const socket =
    kind === 'https'
      ? tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false })
      : net.connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => undefined);
  await once(socket, kind === 'https' ? 'secureConnect' : 'connect');
  return socket;
}

/** Sends one keep-alive GET and resolves with the raw response once its body ("0") has arrived. */
async function getOnce(socket: net.Socket): Promise<string> {
  let received = '';
  const answered = new Promise<string>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (/\r\n\r\n0$/.test(received)) resolve(received);
    });
    socket.once('close', () => reject(new Error(`closed before the answer: ${received}`)));
  });
  socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
  return answered;
}

/**
 * Resolves once the socket closed (the test's own timeout fails a connection that stays open). It
 * reads what is left (a 408), or a paused socket would never see the end of the stream.
 */
async function closed(socket: net.Socket): Promise<void> {
  if (socket.closed) return;
  // Not events.once: a reset connection emits 'error' before 'close', and once would reject on it.
  const ended = new Promise((resolve) => socket.once('close', resolve));
  socket.resume();
  await ended;
}

after(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(started.map((server) => server.close()));
});

describe('the listeners close idle connections', { timeout: 20_000 }, () => {
  it('HTTPS: a TCP connection that never starts TLS is closed', async () => {
    const server = await serve('https', SHORT);
    const raw = net.connect(portOf(server), '127.0.0.1');
    sockets.push(raw);
    raw.on('error', () => undefined);
    await once(raw, 'connect');
    await closed(raw);
  });

  for (const kind of ['https', 'http'] as const) {
    it(`${kind}: a connection that sends no byte of a request is closed (TLS: after its handshake)`, async () => {
      const silent = await connect(kind, await serve(kind, SHORT));
      await closed(silent);
    });

    it(`${kind}: a keep-alive connection idle after its request is closed`, async () => {
      const socket = await connect(kind, await serve(kind, SHORT));
      const answer = await getOnce(socket);
      assert.match(answer, /^HTTP\/1\.1 200 /);
      assert.match(
        answer,
        /\r\nConnection: keep-alive\r\n/i,
        'kept alive, not closed by the answer',
      );
      await closed(socket);
    });

    it(`${kind}: a slow upload that keeps sending outlasts the idle and header limits`, async () => {
      const server = await serve(kind, SHORT);
      const chunks = 20;
      const request = (kind === 'https' ? https : http).request({
        host: '127.0.0.1',
        port: portOf(server),
        method: 'POST',
        path: '/upload',
        rejectUnauthorized: false,
        agent: false,
        headers: { 'content-type': 'application/x-ndjson' },
      });
      const response = once(request, 'response') as Promise<[http.IncomingMessage]>;
      // A line every 40 ms for 20 lines: the upload lasts several idle and header limits over.
      for (let index = 0; index < chunks; index++) {
        request.write(`${JSON.stringify({ line: index })}\n`);
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
      request.end();
      const [answer] = await response;
      let body = '';
      for await (const chunk of answer) body += String(chunk);
      assert.equal(answer.statusCode, 200);
      const sent = Array.from({ length: chunks }, (_, index) => JSON.stringify({ line: index }));
      assert.equal(Number(body), sent.join('\n').length + 1);
    });

    it(`${kind}: with a cap of 2, a third connection is closed while two are held; a freed place is taken again`, async () => {
      const server = await serve(kind, { maxConnections: 2 });
      // The server's side of each connection it serves (on HTTPS, once its handshake is done).
      const served = kind === 'https' ? 'secureConnection' : 'connection';
      const accepted: net.Socket[] = [];
      server.server.on(served, (socket: net.Socket) => accepted.push(socket));
      const held = [await connect(kind, server), await connect(kind, server)];
      while (accepted.length < 2) await once(server.server, served);

      const third =
        kind === 'https'
          ? tls.connect({ host: '127.0.0.1', port: portOf(server), rejectUnauthorized: false })
          : net.connect(portOf(server), '127.0.0.1');
      sockets.push(third);
      let secured = false;
      third.on('secureConnect', () => (secured = true));
      third.on('error', () => undefined);
      await closed(third);
      assert.equal(secured, false, 'the third never got a TLS session');
      for (const socket of held) assert.match(await getOnce(socket), /^HTTP\/1\.1 200 /);

      // One held connection goes; once the server saw it close, a new one is served.
      const [first] = held;
      const serverSide = accepted.find((socket) => socket.remotePort === first?.localPort);
      assert.ok(first && serverSide);
      const serverSideClosed = new Promise((resolve) => serverSide.once('close', resolve));
      first.destroy();
      await serverSideClosed;
      const next = await connect(kind, server);
      assert.match(await getOnce(next), /^HTTP\/1\.1 200 /);
    });
  }
});
