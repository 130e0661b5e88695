import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { createCertificateAuthority } from './certificate-authority.js';
import { DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER, ensureDevPki } from './dev-pki.js';
import { issueCertificate } from './issue-certificate.js';

interface ClientCredentials {
  ca?: string;
  cert?: string;
  key?: string;
}

interface PeerSubject {
  authorized: boolean;
  commonName: string;
  organizationIdentifier: string;
}

interface ServerMaterial {
  ca: string;
  cert: string;
  key: string;
}

interface RunningServer {
  server: https.Server;
  port: number;
  handledRequests: () => number;
}

/** The production TLS profile: TLS 1.3 only, client certificate required and verified against the CA. */
async function startMutualTlsServer(material: ServerMaterial): Promise<RunningServer> {
  let handled = 0;
  const server = https.createServer(
    { ...material, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.3' },
    (request, response) => {
      handled += 1;
      const socket = request.socket as TLSSocket;
      const subject = socket.getPeerCertificate().subject as unknown as Record<string, string>;
      const peer: PeerSubject = {
        authorized: socket.authorized,
        commonName: subject['CN'] ?? '',
        organizationIdentifier: subject['organizationIdentifier'] ?? '',
      };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(peer));
    },
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, handledRequests: () => handled };
}

async function stop(server: https.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

function get(port: number, host: string, credentials: ClientCredentials): Promise<PeerSubject> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      { host, port, path: '/', method: 'GET', agent: false, minVersion: 'TLSv1.3', ...credentials },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          if (response.statusCode === 200) resolve(JSON.parse(body) as PeerSubject);
          else reject(new Error(`unexpected status ${response.statusCode}`));
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('development certificates over mutual TLS 1.3', { timeout: 30_000 }, () => {
  let dataDir: string;
  let material: ServerMaterial;
  let running: RunningServer;
  let clientCert: string;
  let clientKey: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'vop-pki-tls-'));
    const pki = await ensureDevPki(dataDir);
    const read = (file: string): Promise<string> => readFile(file, 'utf8');
    material = {
      ca: await read(pki.caPath),
      cert: await read(pki.serverCertPath),
      key: await read(pki.serverKeyPath),
    };
    clientCert = await read(pki.clientCertPath);
    clientKey = await read(pki.clientKeyPath);
    running = await startMutualTlsServer(material);
  });

  after(async () => {
    await stop(running.server);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('completes the handshake with the participant certificate and shows the server its subject', async () => {
    const peer = await get(running.port, '127.0.0.1', {
      ca: material.ca,
      cert: clientCert,
      key: clientKey,
    });
    assert.deepEqual(peer, {
      authorized: true,
      commonName: 'vop-dev-participant',
      organizationIdentifier: DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER,
    });
  });

  it('presents a server certificate valid for localhost as well as 127.0.0.1', async () => {
    const peer = await get(running.port, 'localhost', {
      ca: material.ca,
      cert: clientCert,
      key: clientKey,
    });
    assert.equal(peer.authorized, true);
  });

  it('lets the client reject the server when ca.pem is not trusted', async () => {
    await assert.rejects(
      get(running.port, '127.0.0.1', { cert: clientCert, key: clientKey }),
      (error: NodeJS.ErrnoException) => {
        // The server sends the CA along with its certificate, so OpenSSL reports a self-signed root it does not trust.
        const untrusted = ['SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'];
        assert.ok(untrusted.includes(error.code ?? ''), error.code);
        return true;
      },
    );
  });

  /**
   * Asserts the server refused the client for the given reason before any request ran. A dedicated server per
   * attempt makes sure the refusal observed is this client's and not a late one from an earlier connection.
   */
  async function assertRefused(
    credentials: ClientCredentials,
    serverReason: RegExp,
  ): Promise<void> {
    const dedicated = await startMutualTlsServer(material);
    try {
      const refusal = once(dedicated.server, 'tlsClientError') as Promise<[Error, TLSSocket]>;
      await assert.rejects(get(dedicated.port, '127.0.0.1', { ca: material.ca, ...credentials }));
      const [error, socket] = await refusal;
      // Node closes a connection whose client certificate fails verification without a TLS alert and leaves the
      // reason on the socket as authorizationError; OpenSSL's own handshake failures arrive as the error.
      assert.match(`${error.message} ${String(socket.authorizationError ?? '')}`, serverReason);
      assert.equal(dedicated.handledRequests(), 0, 'the request must never reach the handler');
    } finally {
      await stop(dedicated.server);
    }
  }

  it('refuses a client without a certificate', async () => {
    await assertRefused({}, /peer did not return a certificate/);
  });

  it('refuses a client certificate issued by another CA', async () => {
    const otherCa = await createCertificateAuthority({ commonName: 'Someone else CA' });
    const stranger = await issueCertificate(otherCa, { commonName: 'stranger', usage: 'client' });
    await assertRefused(
      { cert: stranger.certPem, key: stranger.keyPem },
      /UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT/,
    );
  });

  it('refuses the server certificate used as a client certificate, since it lacks clientAuth', async () => {
    await assertRefused({ cert: material.cert, key: material.key }, /INVALID_PURPOSE/);
  });
});
