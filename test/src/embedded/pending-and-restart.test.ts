import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createPgliteClient } from '@vop/event-store';
import { createGateway } from '@vop/gateway';
import { startHttpsServer } from '@vop/http';
import { createInProcessBus } from '@vop/messaging';
import { createLogger } from '@vop/observability';
import { ensureDevPki } from '@vop/pki';
import { eventually, germanIban, httpsClient } from '@vop/testing';
import { participantTls, runEmbedded, schemeRequest } from './fixtures.js';

describe('a gateway that leaves single checks to a matching service that does not answer', () => {
  it('answers GET /verify/{id} 202 PENDING with Retry-After, and /vop/verify 504 VOP_003 at the deadline', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-gateway-'));
    const pki = await ensureDevPki(dataDir);
    const sql = await createPgliteClient({});
    const bus = createInProcessBus();
    const gateway = createGateway({
      sql,
      bus,
      logger: createLogger({ service: 'test', level: 'silent' }),
      instanceId: 'lonely',
      respondingPsp: 'VOPBDEFFXXX',
      verifyDeadlineMs: 300,
      // Requests wait for matching (as from a gateway before decisions at recording); none runs here.
      singleChecksDecidedBy: 'matching',
      // Authentication is mandatory: the participant certificate is the caller's principal.
      clientCertificates: { trustAnchorsPem: await readFile(pki.caPath, 'utf8'), admin: {} },
    });
    await gateway.start();
    const server = await startHttpsServer({
      handler: gateway.app,
      host: '127.0.0.1',
      port: 0,
      certPem: await readFile(pki.serverCertPath, 'utf8'),
      keyPem: await readFile(pki.serverKeyPath, 'utf8'),
      caPem: await readFile(pki.caPath, 'utf8'),
    });
    const client = httpsClient({ baseUrl: server.url, ...(await participantTls(pki)) });
    try {
      const receipt = await client.post('/verify', { name: 'Nobody Answers', iban: germanIban(1) });
      assert.equal(receipt.status, 201);
      const pending = await client.get(`/verify/${receipt.body.request_id}`);
      assert.equal(pending.status, 202);
      assert.equal(pending.headers['retry-after'], '1');
      assert.deepEqual(pending.body, { request_id: receipt.body.request_id, status: 'PENDING' });

      const timedOut = await client.post(
        '/vop/verify',
        schemeRequest('Nobody Answers', germanIban(2)),
      );
      assert.equal(timedOut.status, 504);
      assert.equal(timedOut.body.error.code, 'VOP_003');
      assert.ok(timedOut.headers['x-processing-time-ms']);
      assert.ok(Number(timedOut.headers['x-processing-time-ms']) >= 300);
    } finally {
      client.close();
      await server.close();
      await gateway.stop();
      await bus.close();
      await sql.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('embedded persistence', () => {
  it('keeps accounts and verifications across a restart on the same data folder', async () => {
    const first = await runEmbedded({ inMemory: false });
    const iban = germanIban(4242);
    const created = await first.admin.post('/accounts', { iban, name: 'Persistent Holder' });
    assert.equal(created.status, 201);
    const receipt = await first.client.post('/verify', { name: 'Persistent Holder', iban });
    await eventually(async () =>
      (await first.client.get(`/verify/${receipt.body.request_id}`)).status === 200
        ? true
        : undefined,
    );
    await first.stop({ keepData: true });

    const second = await runEmbedded({ dataDir: first.dataDir, inMemory: false });
    try {
      assert.equal((await second.admin.get(`/api/accounts/${created.body.id}`)).body.iban, iban);
      const result = await second.client.get(`/verify/${receipt.body.request_id}`);
      assert.equal(result.status, 200);
      assert.equal(result.body.name_match_code, 'MATCH');
      const verified = await second.client.post(
        '/vop/verify',
        schemeRequest('Persistent Holder', iban),
      );
      assert.equal(verified.body.partyNameMatch, 'MTCH');
      assert.equal(second.service.pki.created, false);
    } finally {
      await second.stop();
    }
  });
});
