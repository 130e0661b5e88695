import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { createLogger, createMetricsRegistry } from '@vop/observability';
import { createCertificateAuthority, issueCertificate, type PemPair } from '@vop/pki';
import { eventually, startScriptedResponder, type ScriptedResponder } from '@vop/testing';
import { createRequester, type RequesterOptions } from './requester.js';
import type { PayeeCheck, Responder } from './types.js';

const NAME = 'Erika Mustermann';
const IBAN = 'DE89370400440532013000';
const check: PayeeCheck = {
  iban: IBAN,
  name: NAME,
  partyAgentBic: 'COBADEFFXXX',
  requestingAgentBic: 'VOPBDEFFXXX',
};
const REQUEST_ID = '3f0c6a1e-1d0b-4b8e-9a55-6c1c1a3c9a01';
const NOW = new Date('2026-11-29T09:00:00.000Z');
const deadline = { deadlineMs: 1_000 };

let ca: PemPair;
let client: PemPair;
let first: ScriptedResponder;
let second: ScriptedResponder;
let participantCount = 0;
const logLines: string[] = [];

/** A fresh participant per test, so one test's failures never open another's breaker. */
const responderAt = (...servers: Array<ScriptedResponder | string>): Responder => {
  participantCount += 1;
  return {
    participant: `PSDDE-TEST-${participantCount}`,
    bic: 'COBADEFFXXX',
    endpoints: servers.map((server, index) => ({
      uri: typeof server === 'string' ? server : server.uri,
      priority: index + 1,
    })),
  };
};

function requester(overrides: Partial<RequesterOptions> = {}) {
  const metrics = createMetricsRegistry({
    service: 'requester-test',
    collectDefaultMetrics: false,
  });
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  const created = createRequester({
    tls: { cert: client.certPem, key: client.keyPem, ca: ca.certPem },
    metrics,
    logger: createLogger({ service: 'requester-test', level: 'info', destination }),
    now: () => NOW,
    newId: () => REQUEST_ID,
    ...overrides,
  });
  return Object.assign(created, { metrics });
}

describe('the requester over mutual TLS', { timeout: 60_000 }, () => {
  before(async () => {
    ca = await createCertificateAuthority({ commonName: 'Scheme test CA' });
    client = await issueCertificate(ca, {
      commonName: 'requesting-psp',
      usage: 'client',
      organizationIdentifier: 'PSDXX-REQ-000001',
    });
    first = await startScriptedResponder({ ca });
    second = await startScriptedResponder({ ca });
  });
  after(async () => {
    await first.close();
    await second.close();
  });
  beforeEach(async () => {
    for (const server of [first, second]) {
      server.clearRequests();
      server.script({ kind: 'answer', body: { partyNameMatch: 'MTCH' } });
      await server.presentOwnCertificate();
    }
  });

  it('sends the EPC request with our certificate, headers and body, and returns the answer', async () => {
    const subject = requester();
    const answer = await subject.ask(
      responderAt(first),
      { ...check, remittance: 'Invoice 42' },
      deadline,
    );
    await subject.close();

    assert.equal(answer.kind, 'answered');
    assert.deepEqual(answer.kind === 'answered' && answer.answer, { partyNameMatch: 'MTCH' });
    const [received] = first.requests();
    assert.equal(received?.method, 'POST');
    assert.equal(received?.path, '/vop/v1/payee-verifications');
    assert.equal(received?.headers['x-request-id'], REQUEST_ID);
    assert.equal(received?.headers['x-request-timestamp'], '2026-11-29T09:00:00.000Z');
    assert.match(String(received?.headers['content-type']), /^application\/json/);
    assert.equal(received?.tlsVersion, 'TLSv1.3');
    assert.deepEqual(received?.clientCertificate, {
      commonName: 'requesting-psp',
      organizationIdentifier: 'PSDXX-REQ-000001',
    });
    assert.deepEqual(received?.body, {
      party: { name: NAME },
      partyAccount: { iban: IBAN },
      partyAgent: { financialInstitutionId: { bicfi: 'COBADEFFXXX' } },
      requestingAgent: { financialInstitutionId: { bicfi: 'VOPBDEFFXXX' } },
      unstructuredRemittanceInformation: ['Invoice 42'],
    });
  });

  it('given a refused first endpoint, then the second is asked (nothing reached the first)', async () => {
    const subject = requester();
    await first.refuseConnections();
    try {
      const answer = await subject.ask(responderAt(first, second), check, deadline);
      assert.equal(answer.kind, 'answered');
      assert.equal(second.requests().length, 1);
    } finally {
      await first.acceptConnections();
      await subject.close();
    }
  });

  it('given a first endpoint that never answers, then it times out and the second is NOT asked', async () => {
    const subject = requester();
    first.script({ kind: 'silent' });
    const answer = await subject.ask(responderAt(first, second), check, { deadlineMs: 300 });

    assert.equal(answer.kind === 'failed' && answer.reason, 'RESPONDER_TIMEOUT');
    assert.equal(first.requests().length, 1);
    assert.equal(second.requests().length, 0);
    // The aborted call's socket is closed, not left hanging.
    await eventually(async () => (first.openConnections() === 0 ? true : undefined), {
      what: 'the silent connection to close',
    });
    await subject.close();
  });

  it('given a first endpoint that answers 500, then the second is NOT asked', async () => {
    const subject = requester();
    first.script({ kind: 'status', status: 500, body: { type: 'urn:x', code: 'FORMAT_ERROR' } });
    const answer = await subject.ask(responderAt(first, second), check, deadline);
    await subject.close();

    assert.equal(answer.kind === 'failed' && answer.reason, 'RESPONDER_ERROR');
    assert.match(answer.kind === 'failed' ? answer.detail : '', /status 500 FORMAT_ERROR/);
    assert.equal(second.requests().length, 0);
  });

  it('given a first endpoint that drops the connection after the request, then the second is NOT asked', async () => {
    const subject = requester();
    first.script({ kind: 'drop' });
    const answer = await subject.ask(responderAt(first, second), check, deadline);
    await subject.close();

    assert.equal(answer.kind === 'failed' && answer.reason, 'RESPONDER_UNAVAILABLE');
    assert.equal(first.requests().length, 1);
    assert.equal(second.requests().length, 0);
  });

  it('given a server certificate from another CA, then TLS fails and the second endpoint is asked', async () => {
    const subject = requester();
    await first.presentForeignCertificate();
    const alone = await subject.ask(responderAt(first), check, deadline);
    const withBackup = await subject.ask(responderAt(first, second), check, deadline);
    await subject.close();

    assert.equal(alone.kind === 'failed' && alone.reason, 'RESPONDER_TLS_FAILURE');
    assert.equal(withBackup.kind, 'answered');
    assert.equal(first.requests().length, 0);
  });

  it('given a certificate from our CA for another host, then TLS fails', async () => {
    const subject = requester();
    await first.presentCertificate(
      await issueCertificate(ca, {
        commonName: 'other',
        usage: 'server',
        dnsNames: ['other.example'],
      }),
    );
    const answer = await subject.ask(responderAt(first), check, deadline);
    await subject.close();

    assert.equal(answer.kind === 'failed' && answer.reason, 'RESPONDER_TLS_FAILURE');
    assert.equal(first.requests().length, 0);
  });

  it('given an http endpoint, then it is never called', async () => {
    const subject = requester();
    const answer = await subject.ask(
      responderAt(first.uri.replace('https:', 'http:')),
      check,
      deadline,
    );
    await subject.close();

    assert.equal(answer.kind === 'failed' && answer.reason, 'RESPONDER_UNAVAILABLE');
    assert.match(answer.kind === 'failed' ? answer.detail : '', /not https/);
  });

  it('given failures in a row, then the breaker opens and the responder is not called', async () => {
    const subject = requester({ breaker: { consecutiveFailures: 2 } });
    const responder = responderAt(first);
    first.script({ kind: 'status', status: 503 });
    await subject.ask(responder, check, deadline);
    await subject.ask(responder, check, deadline);
    const third = await subject.ask(responder, check, deadline);

    assert.equal(third.kind === 'failed' && third.reason, 'RESPONDER_UNAVAILABLE');
    assert.equal(first.requests().length, 2);
    assert.match(await subject.metrics.registry.metrics(), /requester_breaker_state\{[^}]*\} 2/);
    await subject.close();
  });

  it("given a responder's 400s about our request, then the breaker stays closed", async () => {
    const subject = requester({ breaker: { consecutiveFailures: 2 } });
    const responder = responderAt(first);
    first.script({ kind: 'status', status: 400, body: { type: 'urn:x', code: 'FORMAT_ERROR' } });
    for (let call = 0; call < 3; call += 1) await subject.ask(responder, check, deadline);
    await subject.close();

    assert.equal(first.requests().length, 3);
  });

  it('given an open breaker, when the cool-down has passed, then one probe goes and success closes it', async () => {
    let clock = NOW.getTime();
    const subject = requester({
      now: () => new Date(clock),
      breaker: { consecutiveFailures: 1, coolDownMs: 5_000 },
    });
    const responder = responderAt(first);
    first.script({ kind: 'status', status: 500 });
    await subject.ask(responder, check, deadline);
    first.script({ kind: 'answer', body: { partyNameMatch: 'NMTC' } });
    const refused = await subject.ask(responder, check, deadline);
    clock += 5_000;
    const probe = await subject.ask(responder, check, deadline);
    const after = await subject.ask(responder, check, deadline);
    await subject.close();

    assert.equal(refused.kind, 'failed');
    assert.equal(probe.kind, 'answered');
    assert.equal(after.kind, 'answered');
    assert.equal(first.requests().length, 3);
  });

  it('given the concurrency bound reached and no queue, then a call is BUSY without calling', async () => {
    const subject = requester({ concurrency: 1, queue: 0 });
    const responder = responderAt(first);
    first.script({ kind: 'slow', afterMs: 200, body: { partyNameMatch: 'MTCH' } });
    const [slow, refused] = await Promise.all([
      subject.ask(responder, check, deadline),
      subject.ask(responder, check, deadline),
    ]);
    await subject.close();

    assert.equal(slow.kind, 'answered');
    assert.equal(refused.kind === 'failed' && refused.reason, 'RESPONDER_BUSY');
    assert.equal(first.requests().length, 1);
  });

  it('given a rate budget of one a second, then a second call at once is BUSY without calling', async () => {
    const subject = requester({ ratePerSecond: 1 });
    const responder = responderAt(first);
    const answers = await Promise.all([
      subject.ask(responder, check, deadline),
      subject.ask(responder, check, deadline),
    ]);
    await subject.close();

    assert.deepEqual(
      answers.map((answer) => (answer.kind === 'failed' ? answer.reason : answer.kind)).sort(),
      ['RESPONDER_BUSY', 'answered'],
    );
    assert.equal(first.requests().length, 1);
  });

  it('counts outcomes per responder, and neither metrics nor logs hold a name or an IBAN', async () => {
    const subject = requester();
    const responder = responderAt(first);
    await subject.ask(responder, check, deadline);
    first.script({ kind: 'answer', body: { partyNameMatch: 'NMTC', matchedName: NAME } });
    await subject.ask(responder, check, deadline);
    first.script({
      kind: 'status',
      status: 400,
      body: { type: 'x', code: 'FORMAT_ERROR', detail: NAME },
    });
    await subject.ask(responder, check, deadline);
    const text = await subject.metrics.registry.metrics();
    await subject.close();

    const series = (name: string, outcome: string) =>
      new RegExp(
        `${name}\\{(?=[^}]*responder="${responder.participant}")(?=[^}]*outcome="${outcome}")[^}]*\\} 1`,
      );
    assert.match(text, series('requester_requests_total', 'MTCH'));
    assert.match(text, series('requester_requests_total', 'RESPONDER_INVALID_ANSWER'));
    assert.match(text, series('requester_request_duration_seconds_count', 'RESPONDER_ERROR'));
    const logs = logLines.join('');
    assert.match(logs, /RESPONDER_INVALID_ANSWER/);
    for (const secret of [NAME, IBAN, 'Mustermann']) {
      assert.ok(!text.includes(secret), `metrics hold ${secret}`);
      assert.ok(!logs.includes(secret), `logs hold ${secret}`);
    }
  });
});
