import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER } from '@vop/pki';
import { eventually, germanIban } from '@vop/testing';
import { runEmbedded, schemeRequest, type RunningEmbedded } from './fixtures.js';

const DIRECTORY_PATH = '/admin/scheme-directory';

const participant = (authorisationNumber: string, bics: string[], environment = 'T') => ({
  authorisationNumber,
  bics,
  environment,
});
const devParticipant = participant(DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER, ['DEUTDEFFXXX']);
const epcHeaders = () => ({
  'X-Request-ID': randomUUID(),
  'X-Request-Timestamp': new Date().toISOString(),
});

describe('the scheme directory (issue 16), embedded run', () => {
  let embedded: RunningEmbedded;
  before(async () => {
    embedded = await runEmbedded();
  });
  after(async () => {
    await embedded.stop();
  });

  it('the development profile serves a seeded directory holding its own participant', async () => {
    const response = await embedded.admin.get(DIRECTORY_PATH);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers.etag, '"1"');
    assert.deepEqual(
      { ...response.body, loadedAt: undefined },
      {
        version: 1,
        snapshotId: 'development-seed',
        loadedAt: undefined,
        loadedBy: 'development-profile',
        participants: 1,
      },
    );
    const verified = await embedded.client.post(
      '/vop/verify',
      schemeRequest('Erika Mustermann', germanIban(880_001)),
    );
    assert.deepEqual([verified.status, verified.body], [200, { partyNameMatch: 'NOAP' }]);
  });

  it('only the admin certificate loads a directory; a participant gets 403 in the flat format', async () => {
    const refused = await embedded.client.put(DIRECTORY_PATH, {
      snapshotId: 'x',
      participants: [],
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'ACCESS_DENIED');
  });

  it('a snapshot replaces the directory whole, as the next version, and every load is audited', async () => {
    const before = (await embedded.admin.get(DIRECTORY_PATH)).body.version as number;
    const stale = await embedded.admin.put(
      DIRECTORY_PATH,
      { snapshotId: 'eds-stale', participants: [devParticipant] },
      { headers: { 'If-Match': `"${before + 5}"` } },
    );
    assert.equal(stale.status, 409);
    assert.equal(stale.body.error, 'VERSION_MISMATCH');

    // Without the development participant: its certificate is no longer admitted.
    const without = await embedded.admin.put(
      DIRECTORY_PATH,
      {
        snapshotId: 'eds-2026-11-25',
        participants: [participant('PSDDE-BAFIN-654321', ['BYLADEMM'])],
      },
      { headers: { 'If-Match': `"${before}"` } },
    );
    assert.equal(without.status, 200, without.text);
    assert.equal(without.body.version, before + 1);
    assert.equal(without.body.snapshotId, 'eds-2026-11-25');
    const refused = await embedded.client.post(
      '/vop/v1/payee-verifications',
      schemeRequest('Erika Mustermann', germanIban(880_002)),
      { headers: epcHeaders() },
    );
    assert.equal(refused.status, 401);
    assert.equal(refused.body.code, 'CLIENT_INVALID');

    const restored = await embedded.admin.put(DIRECTORY_PATH, {
      snapshotId: 'eds-2026-11-26',
      participants: [devParticipant],
    });
    assert.equal(restored.body.version, before + 2);
    const admitted = await embedded.client.post(
      '/vop/v1/payee-verifications',
      schemeRequest('Erika Mustermann', germanIban(880_003)),
      { headers: epcHeaders() },
    );
    assert.deepEqual([admitted.status, admitted.body], [200, { partyNameMatch: 'NOAP' }]);

    await eventually(
      async () => {
        const audit = await embedded.admin.get('/admin/audit?limit=20');
        const entries = (audit.body.entries as Array<{ operation: string; result: string }>).filter(
          (entry) => entry.operation === 'PUT /admin/scheme-directory',
        );
        return entries.length >= 3 ? entries : undefined;
      },
      { what: 'audit entries of the loads' },
    ).then((entries) =>
      assert.deepEqual(
        entries.slice(0, 3).map((entry) => entry.result),
        ['success', 'success', 'failure'],
      ),
    );
  });

  it('accepts a directory file far above the 64 kB body limit of other requests', async () => {
    const participants = Array.from({ length: 3000 }, (_, index) =>
      // A BIC names one participant: each its own branch of BANKDE.
      participant(`PSDDE-BAFIN-${100000 + index}`, [
        `BANKDE${String(Math.floor(index / 1000)).padStart(2, '0')}${String(index % 1000).padStart(3, '0')}`,
      ]),
    );
    participants.push(devParticipant);
    const response = await embedded.admin.put(DIRECTORY_PATH, {
      snapshotId: 'eds-full',
      participants,
    });
    assert.ok(JSON.stringify(participants).length > 200_000);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.participants, 3001);
  });

  it('refuses a malformed snapshot naming the field, and one participant twice', async () => {
    const malformed = await embedded.admin.put(DIRECTORY_PATH, {
      snapshotId: 'bad',
      participants: [
        { authorisationNumber: 'not-a-number', bics: ['DEUTDEFFXXX'], environment: 'T' },
      ],
    });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.field, 'participants[0].authorisationNumber');
    const twice = await embedded.admin.put(DIRECTORY_PATH, {
      snapshotId: 'twice',
      participants: [devParticipant, devParticipant],
    });
    assert.equal(twice.status, 400);
    assert.equal(twice.body.field, 'participants[1].authorisationNumber');
  });
  it('loads a bank-code table as text/csv under every base path; every load is audited', async () => {
    const csv = { headers: { 'content-type': 'text/csv' } };
    const file = 'country,bank_code,bic\r\nDE,10070000,DEUTDEBB\r\nAT,12000,BKAUATWW\r\n';
    const first = await embedded.admin.put('/admin/bank-codes?tableId=blz', undefined, {
      ...csv,
      rawBody: file,
    });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual([first.body.entries, first.body.countries], [2, { AT: 1, DE: 1 }]);
    const second = await embedded.admin.put('/v1/admin/bank-codes', undefined, {
      headers: { ...csv.headers, 'If-Match': `"${first.body.version}"` },
      rawBody: `${file}DE,50040000,COBADEFF\r\n`,
    });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.version, first.body.version + 1);
    const refused = await embedded.admin.put('/admin/bank-codes', undefined, {
      ...csv,
      rawBody: 'DE,1007,DEUTDEBB\n',
    });
    assert.deepEqual([refused.status, refused.body.field], [400, 'line 1']);
    const served = await embedded.admin.get('/admin/bank-codes');
    assert.deepEqual([served.status, served.body.entries], [200, 3]);

    const audited = await eventually(
      async () => {
        const audit = await embedded.admin.get('/admin/audit?limit=50');
        const entries = (audit.body.entries as Array<{ operation: string; result: string }>).filter(
          (entry) =>
            entry.operation.startsWith('PUT ') && entry.operation.endsWith('/admin/bank-codes'),
        );
        return entries.length >= 3 ? entries : undefined;
      },
      { what: 'audit entries of the bank-code loads', intervalMs: 250 },
    );
    assert.deepEqual(
      audited.slice(0, 3).map((entry) => entry.result),
      ['failure', 'success', 'success'],
    );
  });
});

describe('the scheme directory in a live deployment', () => {
  it('with no directory loaded, refuses every requester; once loaded, admits the live participants', async () => {
    const embedded = await runEmbedded({
      env: { VOP_PROFILE: 'production', VOP_ENVIRONMENT: 'live', VOP_OWN_BICS: 'COBADEFFXXX' },
    });
    try {
      assert.equal((await embedded.admin.get(DIRECTORY_PATH)).status, 404);
      const request = schemeRequest('Erika Mustermann', germanIban(880_010));
      const refused = await embedded.client.post('/vop/verify', request);
      assert.equal(refused.status, 401);
      assert.equal(refused.body.error.code, 'VOP_002');
      assert.equal(refused.body.error.details.reason, 'CLIENT_INVALID');

      // A participant of the test environment (T) is not one of a live deployment.
      await embedded.admin.put(DIRECTORY_PATH, {
        snapshotId: 'eds-t',
        participants: [devParticipant],
      });
      assert.equal((await embedded.client.post('/vop/verify', request)).status, 401);

      const live = { ...devParticipant, environment: 'L' };
      await embedded.admin.put(DIRECTORY_PATH, { snapshotId: 'eds-l', participants: [live] });
      const admitted = await embedded.client.post('/vop/verify', request);
      assert.deepEqual([admitted.status, admitted.body], [200, { partyNameMatch: 'NOAP' }]);
    } finally {
      await embedded.stop();
    }
  });

  it('keeps the loaded directory across a restart, and the seed never overwrites it', async () => {
    const first = await runEmbedded({ inMemory: false });
    const loaded = await first.admin.put(DIRECTORY_PATH, {
      snapshotId: 'kept',
      participants: [devParticipant, participant('PSDDE-BAFIN-654321', ['BYLADEMMXXX'])],
    });
    assert.equal(loaded.body.version, 2);
    await first.stop({ keepData: true });
    const second = await runEmbedded({ inMemory: false, dataDir: first.dataDir });
    try {
      const current = await second.admin.get(DIRECTORY_PATH);
      assert.equal(current.body.version, 2);
      assert.equal(current.body.snapshotId, 'kept');
      assert.equal(current.body.participants, 2);
    } finally {
      await second.stop();
    }
  });
});
