import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, germanIban, httpsClient } from '@vop/testing';
import { participantTls, runEmbedded, schemeRequest, type RunningEmbedded } from './fixtures.js';

/** Issue 10, items 2 and 3 through the public edge of the embedded run (analytics owns the routes). */
describe('embedded: analytics and management figures', () => {
  let running: RunningEmbedded;
  let accountId: string;
  const iban = germanIban(310_001);
  const holder = 'Erika Mustermann';

  before(async () => {
    running = await runEmbedded();
    const created = await running.admin.post('/accounts', {
      iban,
      name: holder,
      holderType: 'person',
    });
    assert.equal(created.status, 201, created.text);
    accountId = created.body.id;
    await eventually(
      async () => {
        const response = await running.client.post('/vop/verify', schemeRequest(holder, iban));
        return response.body.partyNameMatch === 'MTCH' ? true : undefined;
      },
      { what: 'the account reaches matching' },
    );
    const other = await running.client.post('/vop/verify', schemeRequest('Max Power', iban));
    assert.equal(other.body.partyNameMatch, 'NMTC');
    const receipt = await running.client.post('/verify', { iban, name: 'Erika Musterman' });
    assert.equal(receipt.status, 201, receipt.text);
    await eventually(
      async () => {
        const result = await running.client.get(`/verify/${receipt.body.request_id}`);
        return result.status === 200 ? true : undefined;
      },
      { what: 'the request/result answer' },
    );
  });
  after(async () => running?.stop());

  const projected = (path: string, ready: (body: any) => boolean) =>
    eventually(
      async () => {
        const response = await running.admin.get(path);
        return response.status === 200 && ready(response.body) ? response : undefined;
      },
      { what: path },
    );

  it('counts verifications by family and outcome in the usage series, with totals', async () => {
    const { body } = await projected(
      '/analytics/usage?granularity=hour',
      // A request may be projected before its completion: wait until none is counted PENDING.
      (b) => b.totals.total >= 3 && b.totals.byOutcome.PENDING === undefined,
    );
    assert.equal(body.granularity, 'hour');
    assert.equal(body.totals.total, 3);
    assert.equal(body.totals.byFamily.scheme, 2);
    assert.equal(body.totals.byFamily['request-result'], 1);
    assert.equal(body.totals.byOutcome.NMTC, 1);
    const counted = body.series.flatMap((period: any) => period.counts);
    assert.deepEqual(
      counted.find((c: any) => c.family === 'scheme' && c.outcome === 'NMTC'),
      { family: 'scheme', outcome: 'NMTC', count: 1 },
    );
    const scheme = await running.admin.get('/v1/analytics/usage?family=scheme');
    assert.equal(scheme.body.totals.total, 2);
    // The participant is the requesting PSP named by its certificate.
    const ours = await running.admin.get('/analytics/usage?participant=PSDXX-DEV-000001');
    assert.equal(ours.body.totals.total, 3);
    const others = await running.admin.get('/analytics/usage?participant=PSDXX-OTHER');
    assert.equal(others.body.totals.total, 0);
  });

  it('gives match rates per period with shares, filtered by holder type', async () => {
    const { body } = await projected('/analytics/match-rates', (b) => b.totals.total >= 3);
    assert.equal(body.totals.counts.NMTC, 1);
    assert.equal(body.totals.counts.MTCH + body.totals.counts.CMTC, 2);
    assert.equal(body.totals.shares.NMTC, 0.3333);
    const organisations = await running.admin.get('/analytics/match-rates?holderType=organisation');
    assert.equal(organisations.body.totals.total, 0);
    const persons = await running.admin.get('/analytics/match-rates?holderType=person');
    assert.equal(persons.body.totals.total, 3);
    // Every check here was decided against our own accounts: one bank, `own`, holds them all.
    const banks = await running.admin.get('/analytics/match-rates?by=responding_bank');
    assert.deepEqual(
      banks.body.byRespondingBank.map((bank: any) => [bank.bank, bank.totals.total]),
      [['own', 3]],
    );
    assert.equal(banks.body.byRespondingBank[0].totals.availability, 1);
  });

  it('answers 400 naming the parameter: from after to, an unknown granularity', async () => {
    const reversed = await running.admin.get(
      '/analytics/usage?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
    );
    assert.equal(reversed.status, 400);
    assert.equal(reversed.body.error.code, 'INVALID_REQUEST');
    assert.equal(reversed.body.error.details.field, 'from');
    const granularity = await running.admin.get('/analytics/match-rates?granularity=week');
    assert.equal(granularity.status, 400);
    assert.equal(granularity.body.error.details.field, 'granularity');
    const grouping = await running.admin.get('/analytics/match-rates?by=bank');
    assert.equal(grouping.status, 400);
    assert.equal(grouping.body.error.details.field, 'by');
  });

  it('reports the account status and its history without typed names; unknown → 404', async () => {
    const status = await running.admin.get(`/account/${accountId}/status`);
    assert.equal(status.status, 200, status.text);
    assert.equal(status.body.status, 'active');
    assert.equal(status.body.available, true);
    assert.equal(status.body.accountId, accountId);
    const history = await projected(`/account/${accountId}/history?limit=2`, (b) => b.nextCursor);
    assert.equal(history.body.verifications.length, 2);
    assert.ok(!history.text.includes('Erika') && !history.text.includes('Max'));
    assert.ok(history.body.verifications.every((v: any) => typeof v.participant === 'string'));
    const rest = await running.admin.get(
      `/account/${accountId}/history?cursor=${history.body.nextCursor}`,
    );
    assert.equal(rest.body.verifications.length, 1);
    assert.equal(rest.body.nextCursor, null);
    const sandboxForm = await running.admin.get(`/account/acc_${accountId}/status`);
    assert.equal(sandboxForm.status, 200);
    const unknown = await running.admin.get('/account/00000000-0000-4000-8000-000000000000/status');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'ACCOUNT_NOT_FOUND');
    const unknownHistory = await running.admin.get('/account/nope/history');
    assert.equal(unknownHistory.body.error.code, 'ACCOUNT_NOT_FOUND');
  });

  it('gives the admin request figures, uptime and version; failed is not a no-match', async () => {
    const { body } = await projected('/admin/stats?period=today', (b) => b.requests.total >= 3);
    assert.equal(body.requests.total, 3);
    assert.equal(body.requests.successful, 3);
    assert.equal(body.requests.failed, 0);
    assert.match(body.requests.averageResponseTime, /^\d+ ms$/);
    assert.match(body.uptime, /^\d+d \d+h \d+m \d+s$/);
    assert.equal(body.version, '0.1.0');
    const health = await running.client.get('/health');
    assert.equal(health.body.version, body.version);
    const bad = await running.admin.get('/admin/stats?period=year');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'INVALID_REQUEST');
    assert.equal(bad.body.field, 'period');
  });

  it('reports PostgreSQL, the bus, consumer lag and outbox lag per service in /health/detailed', async () => {
    const { body } = await running.admin.get('/health/detailed');
    assert.deepEqual(
      body.services.map((service: any) => service.service),
      ['gateway', 'matching', 'analytics'],
    );
    for (const service of body.services) {
      assert.equal(service.database.status, 'up', service.service);
      assert.equal(service.kafka.status, 'up', service.service);
      assert.ok(service.consumers.length > 0, service.service);
      for (const consumer of service.consumers) assert.ok(Number.isInteger(consumer.lag));
    }
    const matching = body.services[1];
    assert.deepEqual(
      matching.outbox.map((relay: any) => relay.name),
      ['matching-outbox', 'matching-batch-outbox'],
    );
  });

  it('lists recent verifications with masked names and IBANs, newest first', async () => {
    const { body } = await projected('/admin/verifications', (b) => b.total >= 3);
    assert.equal(body.total, 3);
    assert.equal(body.verifications.length, 3);
    assert.deepEqual(
      body.verifications.map((v: any) => v.name),
      ['E**** M********', 'M** P****', 'E**** M*********'],
    );
    assert.ok(
      body.verifications.every(
        (v: any) =>
          v.iban === 'DE' + iban.slice(2, 4) + '*'.repeat(iban.length - 8) + iban.slice(-4),
      ),
    );
    const one = await running.admin.get('/admin/verifications?limit=1');
    assert.equal(one.body.verifications.length, 1);
    const failed = await running.admin.get('/admin/verifications?status=failed');
    assert.deepEqual(failed.body, { verifications: [], total: 0 });
  });

  it('lets only the admin or an analytics key in, and audits every management call', async () => {
    const usage = await running.client.get('/analytics/usage');
    assert.equal(usage.status, 403);
    assert.equal(usage.body.error.code, 'ACCESS_DENIED');
    const stats = await running.client.get('/admin/stats');
    assert.equal(stats.status, 403);
    assert.equal(stats.body.error, 'ACCESS_DENIED');

    const issued = await running.admin.post('/admin/api-keys', {
      participantId: 'ANALYSTS',
      scopes: ['analytics'],
    });
    assert.equal(issued.status, 201, issued.text);
    const analyst = httpsClient({
      baseUrl: running.service.url,
      ...(await participantTls(running.service.pki)),
      certPem: undefined,
      keyPem: undefined,
    } as never);
    try {
      const auth = { headers: { authorization: `Bearer ${issued.body.secret}` } };
      assert.equal((await analyst.get('/analytics/match-rates', auth)).status, 200);
      assert.equal((await analyst.get('/admin/stats', auth)).status, 403);
    } finally {
      analyst.close();
    }

    await eventually(
      async () => {
        const audit = await running.admin.get('/admin/audit?limit=500');
        const operations = audit.body.entries.map((entry: any) => entry.operation);
        return operations.includes('GET /admin/stats') &&
          operations.includes('GET /admin/verifications')
          ? true
          : undefined;
      },
      { what: 'audit entries of management reads' },
    );
  });
});
