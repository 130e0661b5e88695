import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '@vop/config';
import { createLogger, createMetricsRegistry } from '@vop/observability';
import { DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER } from '@vop/pki';
import {
  createRequester,
  requesterSettings,
  requesterTls,
  type PayeeCheck,
  type Requester,
  type Responder,
} from '@vop/requester';
import { germanIban } from '@vop/testing';
import { accountsKnownToDeciders, BICS, runEmbedded, type RunningEmbedded } from './fixtures.js';

// Our requester against our own responding side (POST /vop/v1/payee-verifications): the headers,
// timestamp form, body and client certificate it sends are the ones a v1.1.1 responder accepts.
describe('the requester asks our own responder over mutual TLS', { timeout: 120_000 }, () => {
  const iban = germanIban(880_001);
  let embedded: RunningEmbedded;
  let requester: Requester;
  let responder: Responder;
  const check = (overrides: Partial<PayeeCheck>): PayeeCheck => ({
    iban,
    partyAgentBic: BICS.partyAgent,
    requestingAgentBic: BICS.requestingAgent,
    ...overrides,
  });

  before(async () => {
    embedded = await runEmbedded();
    const loaded = await embedded.admin.put('/admin/scheme-directory', {
      snapshotId: 'eds-requester-1',
      participants: [
        {
          authorisationNumber: DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER,
          bics: [BICS.requestingAgent],
          environment: 'T',
        },
      ],
    });
    assert.equal(loaded.status, 200, loaded.text);
    const account = await embedded.admin.post('/accounts', { iban, name: 'Erika Mustermann' });
    assert.equal(account.status, 201, account.text);
    await accountsKnownToDeciders(embedded, [iban]);
    // The development profile's defaults: the dev PKI's participant certificate and CA.
    const settings = requesterSettings(loadConfig({ VOP_DATA_DIR: embedded.dataDir }));
    requester = createRequester({
      tls: await requesterTls(settings),
      metrics: createMetricsRegistry({ service: 'requester', collectDefaultMetrics: false }),
      logger: createLogger({ service: 'requester', level: 'silent' }),
    });
    responder = {
      participant: 'PSDXX-SELF-000001',
      bic: BICS.partyAgent,
      endpoints: [{ uri: `${embedded.service.url}/vop/v1`, priority: 1 }],
    };
  });
  after(async () => {
    await requester?.close();
    await embedded?.stop();
  });

  it('given the holder’s name, then MTCH', async () => {
    const routed = await requester.ask(responder, check({ name: 'Erika Mustermann' }), {
      deadlineMs: 5_000,
    });
    assert.deepEqual(routed.kind === 'answered' ? routed.answer : routed, {
      partyNameMatch: 'MTCH',
    });
  });

  it('given another name, then NMTC; given an account it does not hold, then NOAP', async () => {
    const other = await requester.ask(responder, check({ name: 'Johann Weber' }), {
      deadlineMs: 5_000,
    });
    const unknown = await requester.ask(
      responder,
      check({ iban: germanIban(880_999), name: 'Erika Mustermann' }),
      { deadlineMs: 5_000 },
    );
    assert.equal(other.kind === 'answered' && other.answer.partyNameMatch, 'NMTC');
    assert.equal(unknown.kind === 'answered' && unknown.answer.partyNameMatch, 'NOAP');
  });
});
