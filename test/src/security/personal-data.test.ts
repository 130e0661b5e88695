import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, germanIban } from '@vop/testing';
import { runEmbedded, schemeRequest, type RunningEmbedded } from '../embedded/fixtures.js';

const HOLDER = 'Ingrid Bergström';
const TRADING_NAME = 'Bergström Keramik';
const TYPED = 'Ingrid Bergstrom';
const NDJSON = { 'content-type': 'application/x-ndjson' };

/** Every stored copy the service keeps: both event stores and every read model. */
async function storedText(embedded: RunningEmbedded): Promise<string> {
  const tables = [
    'gateway.messages',
    'gateway.verifications',
    'gateway.accounts',
    'matching.messages',
    'matching_batch.messages',
    'gateway_decisions.accounts',
    'batch.messages',
    'batch.batch_fan_out',
  ];
  const dumps = await Promise.all(
    tables.map(async (table) =>
      JSON.stringify((await embedded.service.sql.query(`SELECT * FROM ${table}`)).rows),
    ),
  );
  return dumps.join('\n');
}

describe('personal data: names stored only encrypted, erasure by crypto-shredding', () => {
  let embedded: RunningEmbedded;
  before(async () => {
    embedded = await runEmbedded();
  });
  after(async () => {
    await embedded.stop();
  });

  it('keeps holder, trading and typed names only as ciphertext; erasure makes them unreadable everywhere and verification answers NOAP', async () => {
    const iban = germanIban(31_337);
    const created = await embedded.admin.post('/accounts', {
      iban,
      name: HOLDER,
      alternateNames: [TRADING_NAME],
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.name, HOLDER, 'the create response echoes the name sent');
    await eventually(async () =>
      (await embedded.client.post('/vop/verify', schemeRequest(HOLDER, iban))).body
        .partyNameMatch === 'MTCH'
        ? true
        : undefined,
    );

    const receipt = await embedded.client.post('/verify', { name: TYPED, iban });
    const before = await eventually(async () => {
      const response = await embedded.client.get(`/verify/${receipt.body.request_id}`);
      return response.status === 200 ? response : undefined;
    });
    assert.equal(before.body.matched_name, HOLDER, 'readable before erasure');

    const stored = await storedText(embedded);
    for (const name of [HOLDER, TRADING_NAME, TYPED, 'Bergstr'])
      assert.equal(stored.includes(name), false, `${name} stored in plain text`);
    assert.match(stored, /pd1:account-/);
    assert.match(stored, /pd1:typed-\d{4}-\d{2}-\d{2}:/);

    const erased = await embedded.admin.post(`/admin/accounts/${created.body.id}/erasure`, {});
    assert.equal(erased.status, 200, erased.text);
    assert.deepEqual(erased.body, { accountId: created.body.id, erased: true });

    const after = await embedded.client.get(`/verify/${receipt.body.request_id}`);
    assert.equal(after.status, 200);
    assert.equal(after.body.matched_name, undefined, 'the disclosed name is gone from API answers');
    // Every key store hears of the destroy when it commits (SubjectKeyStore listens for destroys).
    const noap = await eventually(
      async () => {
        const response = await embedded.client.post('/vop/verify', schemeRequest(HOLDER, iban));
        return response.body.partyNameMatch === 'NOAP' ? response : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 250, what: 'NOAP after erasure' },
    );
    assert.deepEqual(noap.body, { partyNameMatch: 'NOAP' });
    assert.equal(
      (await embedded.client.post('/vop/verify', schemeRequest(TRADING_NAME, iban))).body
        .partyNameMatch,
      'NOAP',
    );

    const audit = await embedded.admin.get('/admin/audit?limit=10');
    assert.ok(
      audit.body.entries.some(
        (entry: { operation: string; target?: string }) =>
          entry.operation === 'account.erased' && entry.target === created.body.id,
      ),
      audit.text,
    );
    assert.equal(audit.text.includes(HOLDER), false);
  });

  it('in the embedded process an erasure is seen at once: the very next check answers NOAP', async () => {
    // Every key store hears of a destroy when it commits (SubjectKeyStore): matching, which decrypts
    // the holder's name, does not keep using a key the gateway has just destroyed.
    const iban = germanIban(31_338);
    const created = await embedded.admin.post('/accounts', { iban, name: HOLDER });
    assert.equal(created.status, 201);
    await eventually(async () =>
      (await embedded.client.post('/vop/verify', schemeRequest(HOLDER, iban))).body
        .partyNameMatch === 'MTCH'
        ? true
        : undefined,
    );
    // The holder's key is now in the process's cache, read to match and to answer.
    const matched = await embedded.client.post('/vop/verify', schemeRequest(HOLDER, iban));
    assert.equal(matched.body.partyNameMatch, 'MTCH');

    const erased = await embedded.admin.post(`/admin/accounts/${created.body.id}/erasure`, {});
    assert.equal(erased.status, 200, erased.text);
    const next = await embedded.client.post('/vop/verify', schemeRequest(HOLDER, iban));
    assert.deepEqual(next.body, { partyNameMatch: 'NOAP' });
  });

  it("erasure clears the import fingerprint of the holder's record, and the same record imported again is refused as ERASED", async () => {
    const iban = germanIban(31_339);
    const file = { rawBody: JSON.stringify({ iban, name: HOLDER }), headers: NDJSON };
    const first = await embedded.admin.request('POST', '/admin/accounts/import', file);
    assert.equal(first.status, 201, first.text);
    const row = async () =>
      (
        await embedded.service.sql.query<{ id: string; fp: string | null; erased: Date | null }>(
          `SELECT id, import_fingerprint AS fp, holder_erased_at AS erased FROM gateway.accounts
            WHERE iban = $1`,
          [iban],
        )
      ).rows[0];
    const imported = await row();
    assert.ok(imported?.fp, 'the import keeps a fingerprint of the record');

    const erased = await embedded.admin.post(`/admin/accounts/${imported.id}/erasure`, {});
    assert.equal(erased.status, 200, erased.text);
    const after = await row();
    // A fingerprint under the deployment's key would not die with the holder's key: it is cleared.
    assert.equal(after?.fp, null);
    assert.ok(after?.erased);
    const again = await embedded.admin.request('POST', '/admin/accounts/import', file);
    assert.equal(again.status, 201, again.text);
    assert.deepEqual(again.body.errors, [{ row: 1, field: 'iban', code: 'ERASED' }]);
    assert.equal((await row())?.fp, null);
  });

  it('erasure is for the admin certificate only', async () => {
    const response = await embedded.client.post(
      '/admin/accounts/0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01/erasure',
      {},
    );
    assert.equal(response.status, 403);
    assert.equal(response.body.error, 'ACCESS_DENIED');
  });
});
