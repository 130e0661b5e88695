import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eventually, germanIban } from '@vop/testing';
import { runEmbedded, schemeRequest, type RunningEmbedded } from './fixtures.js';

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let nextAccount = 1000;
const freshIban = () => germanIban(nextAccount++);

describe('HTTP API, embedded run (PGlite + in-process bus, real HTTPS)', () => {
  let embedded: RunningEmbedded;
  before(async () => {
    embedded = await runEmbedded();
  });
  after(async () => {
    await embedded.stop();
  });

  /** Account events reach matching asynchronously: wait until a verification sees the account. */
  const awaitProjection = (name: string, iban: string) =>
    eventually(
      async () =>
        (await embedded.client.post('/vop/verify', schemeRequest(name, iban))).body
          .partyNameMatch === 'NOAP'
          ? undefined
          : true,
      {
        what: 'account projection',
      },
    );

  async function createAccount(
    name: string,
    iban = freshIban(),
    extra: Record<string, unknown> = {},
  ) {
    const response = await embedded.admin.post('/accounts', { iban, name, ...extra });
    assert.equal(response.status, 201, response.text);
    return response.body as { id: string; iban: string };
  }

  describe('a family the matching service owns, behind the same edge', () => {
    const explain = { name: 'Jurgen Gross', holderNames: ['Jürgen Groß'], holderType: 'person' };

    it('answers the admin certificate under every base path', async () => {
      for (const path of ['/admin/matching/explain', '/v1/admin/matching/explain']) {
        const response = await embedded.admin.post(path, explain);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.outcome, 'MTCH');
        assert.equal(response.body.matchedName, 'Jürgen Groß');
        assert.ok(Array.isArray(response.body.reasons));
      }
    });

    it('refuses a participant with 403 ACCESS_DENIED in the flat format, and bad input with 400 naming the field', async () => {
      const denied = await embedded.client.post('/admin/matching/explain', explain);
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error, 'ACCESS_DENIED');
      const invalid = await embedded.admin.post('/admin/matching/explain', {
        name: 'X',
        holderNames: [],
      });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.field, 'holderNames');
    });
  });

  describe('account records', () => {
    it('given a valid body, POST /accounts answers 201 with the record', async () => {
      const iban = freshIban();
      const response = await embedded.admin.post('/accounts', {
        iban: iban.replace(/(.{4})/g, '$1 ').trim(),
        name: 'Erika Mustermann',
      });
      assert.equal(response.status, 201);
      assert.match(response.body.id, UUID);
      assert.equal(response.body.iban, iban);
      assert.equal(response.body.name, 'Erika Mustermann');
      assert.match(response.body.created_at, ISO_TIMESTAMP);
      assert.match(response.body.updated_at, ISO_TIMESTAMP);
    });

    it('GET and PUT /api/accounts/{id} never return the holder name', async () => {
      const { id } = await createAccount('Hans Meier');
      const got = await embedded.admin.get(`/api/accounts/${id}`);
      assert.equal(got.status, 200);
      assert.deepEqual(Object.keys(got.body).sort(), ['created_at', 'iban', 'id', 'updated_at']);
      const newIban = freshIban();
      const updated = await embedded.admin.put(`/api/accounts/${id}`, { iban: newIban });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.iban, newIban);
      assert.equal(updated.body.name, undefined);
      assert.ok(updated.body.updated_at >= got.body.updated_at);
      assert.equal((await embedded.admin.get(`/v1/api/accounts/${id}`)).body.iban, newIban);
    });

    it('DELETE answers 204 with no body; afterwards GET is 404 ACCOUNT_NOT_FOUND (nested)', async () => {
      const { id } = await createAccount('Gone Soon');
      const deleted = await embedded.admin.delete(`/api/accounts/${id}`);
      assert.equal(deleted.status, 204);
      assert.equal(deleted.text, '');
      const got = await embedded.admin.get(`/api/accounts/${id}`);
      assert.equal(got.status, 404);
      assert.equal(got.body.error.code, 'ACCOUNT_NOT_FOUND');
      assert.equal(typeof got.body.error.message, 'string');
      assert.equal((await embedded.admin.delete(`/api/accounts/${id}`)).status, 404);
      assert.equal(
        (await embedded.admin.put(`/api/accounts/${id}`, { iban: freshIban() })).status,
        404,
      );
    });

    it('refuses an invalid IBAN, a missing name and unknown fields with 400 INVALID_REQUEST naming the field', async () => {
      const badIban = await embedded.admin.post('/accounts', {
        iban: 'DE00370400440532013000',
        name: 'A',
      });
      assert.equal(badIban.status, 400);
      assert.equal(badIban.body.error.code, 'INVALID_REQUEST');
      assert.equal(badIban.body.error.details.field, 'iban');
      assert.equal(badIban.body.error.details.reason, 'INVALID_IBAN');
      const missing = await embedded.admin.post('/accounts', { iban: freshIban() });
      assert.equal(missing.body.error.details.field, 'name');
      assert.equal(missing.body.error.details.reason, 'MISSING_FIELD');
      const unknown = await embedded.admin.post('/accounts', {
        iban: freshIban(),
        name: 'A',
        nickname: 'x',
      });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.details.field, 'nickname');
    });

    it('a second live account for one IBAN is a 409 conflict; after deletion the IBAN is free', async () => {
      const iban = freshIban();
      const first = await createAccount('First Holder', iban);
      const second = await embedded.admin.post('/accounts', { iban, name: 'Second Holder' });
      assert.equal(second.status, 409);
      await embedded.admin.delete(`/api/accounts/${first.id}`);
      assert.equal(
        (await embedded.admin.post('/accounts', { iban, name: 'Second Holder' })).status,
        201,
      );
    });

    it('an id that is not a UUID is simply not found', async () => {
      const response = await embedded.admin.get('/api/accounts/not-a-uuid');
      assert.equal(response.status, 404);
      assert.equal(response.body.error.code, 'ACCOUNT_NOT_FOUND');
    });
  });

  describe('POST /vop/verify (scheme)', () => {
    async function verify(name: string | undefined, iban: string, path = '/vop/verify') {
      return embedded.client.post(path, schemeRequest(name, iban), {
        headers: { 'x-request-id': '3b241101-e2bb-4255-8caf-4136c566a962' },
      });
    }

    it('the holder name answers MTCH with matchedName and the timing headers', async () => {
      const iban = freshIban();
      await createAccount('Jürgen Groß', iban);
      await awaitProjection('Jürgen Groß', iban);
      const response = await verify('JURGEN  GROSS'.replace('SS', 'ß'), iban);
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { partyNameMatch: 'MTCH', matchedName: 'Jürgen Groß' });
      assert.match(String(response.headers['x-response-timestamp']), ISO_TIMESTAMP);
      assert.match(String(response.headers['x-processing-time-ms']), /^\d+$/);
    });

    it('another name answers NMTC without a name', async () => {
      const iban = freshIban();
      await createAccount('Maria Rossi', iban);
      await awaitProjection('Maria Rossi', iban);
      const response = await verify('Giulia Bianchi', iban);
      assert.deepEqual(response.body, { partyNameMatch: 'NMTC' });
    });

    it('an unknown IBAN and a closed account answer NOAP with HTTP 200', async () => {
      const unknown = await verify('Anybody', freshIban());
      assert.equal(unknown.status, 200);
      assert.deepEqual(unknown.body, { partyNameMatch: 'NOAP' });
      const iban = freshIban();
      const { id } = await createAccount('Closed Holder', iban);
      await awaitProjection('Closed Holder', iban);
      await embedded.admin.put(`/api/accounts/${id}`, { status: 'closed' });
      const closed = await eventually(
        async () => {
          const response = await verify('Closed Holder', iban);
          return response.body.partyNameMatch === 'NOAP' ? response : undefined;
        },
        { what: 'closed account to answer NOAP' },
      );
      assert.equal(closed.status, 200);
    });

    it('after an account moves to another IBAN, the old IBAN answers NOAP and the new one MTCH', async () => {
      const oldIban = freshIban();
      const newIban = freshIban();
      const { id } = await createAccount('Moving Holder', oldIban);
      await awaitProjection('Moving Holder', oldIban);
      // Both IBANs asked once before the move: matching has seen the one with and the one without an account.
      assert.equal((await verify('Moving Holder', oldIban)).body.partyNameMatch, 'MTCH');
      assert.equal((await verify('Moving Holder', newIban)).body.partyNameMatch, 'NOAP');
      assert.equal(
        (await embedded.admin.put(`/api/accounts/${id}`, { iban: newIban })).status,
        200,
      );
      await eventually(
        async () =>
          (await verify('Moving Holder', newIban)).body.partyNameMatch === 'MTCH'
            ? true
            : undefined,
        { what: 'the new IBAN to answer MTCH' },
      );
      assert.deepEqual((await verify('Moving Holder', oldIban)).body, { partyNameMatch: 'NOAP' });
    });

    it('is served under /v1 and /vop/api/v1 too', async () => {
      const iban = freshIban();
      await createAccount('Base Path', iban);
      await awaitProjection('Base Path', iban);
      assert.equal((await verify('Base Path', iban, '/v1/vop/verify')).body.partyNameMatch, 'MTCH');
      assert.equal(
        (await verify('Base Path', iban, '/vop/api/v1/vop/verify')).body.partyNameMatch,
        'MTCH',
      );
    });

    it('a missing name is VOP_004 MISSING_FIELD naming party.name, with the timing headers', async () => {
      const response = await verify(undefined, freshIban());
      assert.equal(response.status, 400);
      assert.equal(response.body.error.code, 'VOP_004');
      assert.equal(response.body.error.category, 'VALIDATION_ERROR');
      assert.deepEqual(response.body.error.details, {
        field: 'party.name',
        reason: 'MISSING_FIELD',
      });
      assert.equal(response.body.metadata.originalRequest, '3b241101-e2bb-4255-8caf-4136c566a962');
      assert.ok(response.headers['x-response-timestamp']);
      assert.ok(response.headers['x-processing-time-ms']);
    });

    it('an invalid IBAN is VOP_004 INVALID_IBAN naming partyAccount.iban', async () => {
      const response = await verify('A Name', 'DE89370400440532013001');
      assert.equal(response.status, 400);
      assert.deepEqual(response.body.error.details, {
        field: 'partyAccount.iban',
        reason: 'INVALID_IBAN',
      });
    });

    it('malformed JSON is 400, a non-JSON body 415, an oversized body 413, all in the scheme format', async () => {
      const malformed = await embedded.client.request('POST', '/vop/verify', {
        rawBody: '{"party":',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(malformed.status, 400);
      assert.equal(malformed.body.error.code, 'VOP_004');
      const notJson = await embedded.client.request('POST', '/vop/verify', {
        rawBody: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(notJson.status, 415);
      assert.equal(notJson.body.error.code, 'VOP_004');
      const huge = await embedded.client.post('/vop/verify', {
        ...schemeRequest('x', freshIban()),
        // Over the 1 MiB body limit (packages/http/src/app.ts); below it a long field is a 400 naming it.
        unstructuredRemittanceInformation: ['y'.repeat(1_100_000)],
      });
      assert.equal(huge.status, 413);
      assert.ok(huge.headers['x-processing-time-ms']);
    });
  });

  describe('the name-matching engine and identifiers, through the API', () => {
    it('a typo answers CMTC with the holder name to confirm; the reason codes reach the request/result family', async () => {
      const iban = freshIban();
      await createAccount('Katarzyna Wiśniewska', iban, { holderType: 'person' });
      await awaitProjection('Katarzyna Wiśniewska', iban);
      const close = await embedded.client.post(
        '/vop/verify',
        schemeRequest('Katarzyna Wisniewksa', iban),
      );
      assert.deepEqual(close.body, { partyNameMatch: 'CMTC', matchedName: 'Katarzyna Wiśniewska' });
      const receipt = await embedded.client.post('/verify', { name: 'Katarzyna Wisniewksa', iban });
      const result = await eventually(async () => {
        const response = await embedded.client.get(`/verify/${receipt.body.request_id}`);
        return response.status === 200 ? response : undefined;
      });
      assert.equal(result.body.name_match_code, 'PARTIAL');
      assert.equal(result.body.matched_name, 'Katarzyna Wiśniewska');
      assert.ok(result.body.reasons.includes('TYPO'), result.text);
    });

    it('a trading name on the account matches; a sister company with another legal form never does', async () => {
      const iban = freshIban();
      await createAccount('Müller Logistik GmbH', iban, {
        holderType: 'organisation',
        alternateNames: ['Blitzkurier'],
      });
      await awaitProjection('Müller Logistik GmbH', iban);
      assert.equal(
        (await embedded.client.post('/vop/verify', schemeRequest('Blitzkurier', iban))).body
          .partyNameMatch,
        'MTCH',
      );
      assert.equal(
        (await embedded.client.post('/vop/verify', schemeRequest('Müller Logistik AG', iban))).body
          .partyNameMatch,
        'NMTC',
      );
    });

    it('party.identification is checked against the account identifiers (idMatch)', async () => {
      const iban = freshIban();
      await createAccount('Acme Holding SE', iban, {
        holderType: 'organisation',
        identifiers: { lei: '5299000J2N45DDNE4Y28' },
      });
      await awaitProjection('Acme Holding SE', iban);
      const same = await embedded.client.post(
        '/vop/verify',
        schemeRequest('Acme Holding SE', iban, { identification: { lei: '5299000J2N45DDNE4Y28' } }),
      );
      assert.deepEqual(same.body, {
        partyNameMatch: 'MTCH',
        matchedName: 'Acme Holding SE',
        idMatch: 'MTCH',
      });
      const other = await embedded.client.post(
        '/vop/verify',
        schemeRequest('Acme Holding SE', iban, { identification: { lei: '529900T8BM49AURSDO55' } }),
      );
      assert.equal(other.body.idMatch, 'NMTC');
    });

    it('the EPC path answers by identification alone, and discloses the name only on CMTC', async () => {
      const iban = freshIban();
      await createAccount('Bäckerei Schmidt GmbH', iban, {
        holderType: 'organisation',
        identifiers: { lei: '5299000J2N45DDNE4Y28' },
      });
      await awaitProjection('Bäckerei Schmidt GmbH', iban);
      const epc = (party: Record<string, unknown>) => ({
        ...schemeRequest(undefined, iban),
        party,
      });
      const epcHeaders = () => ({
        'X-Request-ID': randomUUID(),
        'X-Request-Timestamp': new Date().toISOString(),
      });
      const byId = await embedded.client.post(
        '/vop/v1/payee-verifications',
        epc({ identification: { lei: '5299000J2N45DDNE4Y28' } }),
        { headers: epcHeaders() },
      );
      assert.equal(byId.status, 200, byId.text);
      assert.deepEqual(byId.body, { partyIdMatch: 'MTCH' });
      const exact = await embedded.client.post(
        '/vop/v1/payee-verifications',
        epc({ name: 'Bäckerei Schmidt GmbH' }),
        { headers: epcHeaders() },
      );
      assert.deepEqual(exact.body, { partyNameMatch: 'MTCH' });
      const close = await embedded.client.post(
        '/vop/v1/payee-verifications',
        epc({ name: 'Bäckerei Schmidt' }),
        { headers: epcHeaders() },
      );
      assert.deepEqual(close.body, {
        partyNameMatch: 'CMTC',
        matchedName: 'Bäckerei Schmidt GmbH',
      });
      const neither = await embedded.client.post('/vop/v1/payee-verifications', epc({}), {
        headers: epcHeaders(),
      });
      assert.equal(neither.status, 400);
      assert.equal(neither.body.code, 'FORMAT_ERROR');
    });
  });

  describe('request/result family', () => {
    it('POST /verify answers 201 with a receipt; GET /verify/{id} then gives the result', async () => {
      const iban = freshIban();
      await createAccount('Sofia Andersson', iban);
      await awaitProjection('Sofia Andersson', iban);
      const receipt = await embedded.client.post('/verify', { name: 'Sofia Andersson', iban });
      assert.equal(receipt.status, 201);
      assert.match(receipt.body.request_id, UUID);
      assert.equal(typeof receipt.body.message, 'string');
      const result = await eventually(
        async () => {
          const response = await embedded.client.get(`/verify/${receipt.body.request_id}`);
          return response.status === 200 ? response : undefined;
        },
        { what: 'verification result' },
      );
      assert.equal(result.body.request_id, receipt.body.request_id);
      assert.match(result.body.response_id, UUID);
      assert.equal(result.body.name_match_code, 'MATCH');
      assert.equal(result.body.matched_name, 'Sofia Andersson');
      assert.equal(result.body.id_match_code, 'NOT_APPLICABLE');
      assert.match(result.body.response_timestamp, ISO_TIMESTAMP);
      assert.match(result.body.created_at, ISO_TIMESTAMP);
      const again = await embedded.client.get(`/api/verify/vrf_${receipt.body.request_id}`);
      assert.deepEqual(again.body, result.body);
    });

    it('GET of an unknown id is 404 in the flat format', async () => {
      const response = await embedded.client.get('/verify/6f1f6a43-5a52-4c1f-8f57-0d5d3f3d1a11');
      assert.equal(response.status, 404);
      assert.equal(response.body.error, 'NOT_FOUND');
      assert.equal(typeof response.body.message, 'string');
    });

    it('a missing iban is 400 MISSING_FIELD with field', async () => {
      const response = await embedded.client.post('/verify', { name: 'A' });
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, {
        error: 'MISSING_FIELD',
        message: 'Missing required field: iban',
        field: 'iban',
      });
    });
  });

  it('exposes Prometheus metrics with route templates and outcomes, never ids, names or IBANs', async () => {
    const iban = freshIban();
    const { id } = await createAccount('Metric Holder', iban);
    await awaitProjection('Metric Holder', iban);
    await embedded.admin.get(`/api/accounts/${id}`);
    const unknownId = '7c3e9f0a-1b2d-4c5e-8f6a-9b0c1d2e3f4a';
    assert.equal((await embedded.client.get(`/verify/${unknownId}`)).status, 404);
    const response = await embedded.client.get('/metrics');
    // An error answer is labelled with the whole template too, never a fragment of it.
    assert.match(
      response.text,
      /http_requests_total\{[^}]*route="\/verify\/:requestId\|\/api\/verify\/:requestId"[^}]*status_code="404"[^}]*\}/,
    );
    assert.equal(response.text.includes('route="/:requestId"'), false);
    assert.equal(response.text.includes(unknownId), false);
    assert.equal(response.status, 200);
    assert.match(response.text, /http_requests_total\{[^}]*route="\/vop\/verify"[^}]*\}/);
    assert.match(response.text, /http_requests_total\{[^}]*route="\/api\/accounts\/:id"[^}]*\}/);
    assert.match(
      response.text,
      /verification_outcomes_total\{[^}]*family="scheme"[^}]*outcome="MTCH"[^}]*\} [1-9]/,
    );
    assert.equal(response.text.includes(id), false);
    assert.equal(response.text.includes(iban), false);
    assert.equal(response.text.includes('Metric Holder'), false);
  });

  it('reports the consumer lag of every group of every service and the outbox lag of every relay', async () => {
    const text = (await embedded.client.get('/metrics')).text;
    const groups = [
      'gateway-decision-accounts',
      'gateway-verification-results',
      'gateway-core-banking-feed',
      'matching-verifications',
      'matching-batch-verifications',
      'batch-progress',
      'batch-domestic-accounts',
      'webhook-dispatcher',
      'analytics-projections-g\\d+',
    ];
    for (const group of groups)
      assert.match(
        text,
        new RegExp(
          `^consumer_lag\\{topic="[^"]+",partition="0",group="${group}"[^}]*\\} \\d+$`,
          'm',
        ),
        `consumer_lag of ${group}`,
      );
    // One gateway: its results group holds every partition and wakes the callers itself, so the
    // waiters group is not subscribed (services/gateway/src/verifications/wakeups-while-shared.ts).
    assert.doesNotMatch(text, /group="gateway-waiters-/);
    // One copy of the accounts for every service that decides: matching and batch keep none.
    assert.doesNotMatch(text, /group="(matching-accounts|batch-decision-accounts)"/);
    const { rows } = await embedded.service.sql.query<{ copies: string[] }>(
      `SELECT array_agg(table_schema ORDER BY table_schema) AS copies FROM information_schema.tables
        WHERE table_name = 'accounts' AND table_schema LIKE ANY (ARRAY['%decisions', 'matching'])`,
    );
    assert.deepEqual(rows[0]?.copies, ['gateway_decisions']);
    for (const relay of [
      'gateway-outbox',
      'matching-outbox',
      'batch-outbox',
      'webhook-dead-letters',
    ])
      assert.match(
        text,
        new RegExp(`^outbox_lag_events\\{relay="${relay}"[^}]*\\} \\d+$`, 'm'),
        `outbox_lag_events of ${relay}`,
      );
    // PGlite runs no autovacuum: the embedded service's own upkeep reports how near wraparound it is.
    assert.match(text, /^store_transaction_id_age\{[^}]*\} \d+$/m);
    // Nor a checkpointer: its checkpoints bound the WAL a crash replays.
    assert.match(text, /^store_wal_since_checkpoint_bytes\{[^}]*\} \d+$/m);
  });

  it('serves liveness, readiness and the health record', async () => {
    assert.equal((await embedded.client.get('/livez')).status, 200);
    // Ready once the copy of the accounts has caught up with the writes of the tests before (under
    // load its consumer may still be behind them when first asked).
    await eventually(async () =>
      (await embedded.client.get('/readyz')).status === 200 ? true : undefined,
    );
    const health = await embedded.client.get('/health');
    assert.equal(health.body.status, 'healthy');
    assert.equal(typeof health.body.version, 'string');
    assert.equal(typeof health.body.uptime, 'string');
  });
});
