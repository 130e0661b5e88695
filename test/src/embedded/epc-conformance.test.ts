import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  EPC_RESPONDER_CASES,
  runConformance,
  type ClientCredential,
  type ConformanceFixture,
} from '@vop/conformance';
import { DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER, issueCertificate } from '@vop/pki';
import { eventually, germanIban } from '@vop/testing';
import { participantTls, runEmbedded, type RunningEmbedded } from './fixtures.js';

const fixture: ConformanceFixture = {
  responderBic: 'COBADEFFXXX',
  responderBic8: 'COBADEFF',
  foreignBic: 'BNPAFRPPXXX',
  requesterBic: 'DEUTDEFFXXX',
  otherParticipantBic: 'BYLADEMMXXX',
  person: {
    iban: germanIban(770_001),
    name: 'Erika Mustermann',
    nameWithDiacritics: 'Érika Mustermann',
    otherName: 'Johann Weber',
  },
  organisation: {
    iban: germanIban(770_002),
    name: 'Bäckerei Schmidt GmbH',
    closeName: 'Bäckerei Schmidt',
    lei: '5299000J2N45DDNE4Y28',
    otherLei: '529900T8BM49AURSDO55',
    txid: 'DE123456789',
  },
  unknownIban: germanIban(770_999),
};

/** The directory this responder serves in the run: the development participant and another bank. */
const directory = {
  snapshotId: 'eds-conformance-1',
  participants: [
    {
      authorisationNumber: DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER,
      bics: [fixture.requesterBic],
      environment: 'T',
    },
    {
      authorisationNumber: 'PSDDE-BAFIN-654321',
      bics: [fixture.otherParticipantBic],
      environment: 'T',
    },
  ],
};

describe('EPC inter-PSP API v1.1.1, responding side, over mutual TLS (packages/conformance)', () => {
  let embedded: RunningEmbedded;
  let nonParticipant: ClientCredential;

  before(async () => {
    embedded = await runEmbedded();
    const loaded = await embedded.admin.put('/admin/scheme-directory', directory);
    assert.equal(loaded.status, 200, loaded.text);
    const { pki } = embedded.service;
    const ca = {
      certPem: await readFile(pki.caPath, 'utf8'),
      keyPem: await readFile(path.join(pki.dir, 'ca-key.pem'), 'utf8'),
    };
    nonParticipant = await issueCertificate(ca, {
      commonName: 'Trusted, not adhering',
      usage: 'client',
      organizationIdentifier: 'PSDDE-BAFIN-999999',
    });
    const person = await embedded.admin.post('/accounts', {
      iban: fixture.person.iban,
      name: fixture.person.name,
    });
    const organisation = await embedded.admin.post('/accounts', {
      iban: fixture.organisation.iban,
      name: fixture.organisation.name,
      holderType: 'organisation',
      identifiers: {
        lei: fixture.organisation.lei,
        others: [{ scheme: 'TXID', id: fixture.organisation.txid }],
      },
    });
    assert.deepEqual([person.status, organisation.status], [201, 201]);
    for (const iban of [fixture.person.iban, fixture.organisation.iban])
      await eventually(
        async () => {
          const body = {
            party: { name: 'x' },
            partyAccount: { iban },
            partyAgent: { financialInstitutionId: { bicfi: fixture.responderBic } },
            requestingAgent: { financialInstitutionId: { bicfi: fixture.requesterBic } },
          };
          const answer = await embedded.client.post('/vop/verify', body);
          return answer.body.partyNameMatch === 'NOAP' ? undefined : true;
        },
        { what: 'account projection' },
      );
  });
  after(async () => {
    await embedded.stop();
  });

  it('passes every responding-side case', async () => {
    const tls = await participantTls(embedded.service.pki);
    const results = await runConformance({
      baseUrl: embedded.service.url,
      caPem: tls.caPem,
      credentials: {
        participant: { certPem: tls.certPem, keyPem: tls.keyPem },
        'non-participant': nonParticipant,
      },
      fixture,
      cases: EPC_RESPONDER_CASES,
    });
    const failed = results
      .filter((result) => result.outcome !== 'passed')
      .map(
        (result) =>
          `${result.id} ${result.outcome}: ${result.failures.join('; ')} ${JSON.stringify(result.body)}`,
      );
    assert.deepEqual(failed, []);
    assert.equal(results.length, EPC_RESPONDER_CASES.length);
    const groups = new Set(results.map((result) => result.group));
    assert.equal(groups.size, 8);
  });

  it('the seed path keeps its scheme format for the same refusals: VOP_002 with the reason', async () => {
    const tls = await participantTls(embedded.service.pki);
    const { httpsClient } = await import('@vop/testing');
    const stranger = httpsClient({
      baseUrl: embedded.service.url,
      caPem: tls.caPem,
      ...nonParticipant,
    });
    try {
      const request = {
        party: { name: fixture.person.name },
        partyAccount: { iban: fixture.person.iban },
        partyAgent: { financialInstitutionId: { bicfi: fixture.responderBic } },
        requestingAgent: { financialInstitutionId: { bicfi: fixture.requesterBic } },
      };
      const refused = await stranger.post('/vop/verify', request);
      assert.equal(refused.status, 401);
      assert.equal(refused.body.error.code, 'VOP_002');
      assert.equal(refused.body.error.details.reason, 'CLIENT_INVALID');
      const inconsistent = await embedded.client.post('/vop/verify', {
        ...request,
        requestingAgent: { financialInstitutionId: { bicfi: fixture.otherParticipantBic } },
      });
      assert.equal(inconsistent.status, 401);
      assert.equal(inconsistent.body.error.code, 'VOP_002');
      assert.equal(inconsistent.body.error.details.reason, 'CLIENT_INCONSISTENT');
      const foreign = await embedded.client.post('/vop/verify', {
        ...request,
        partyAgent: { financialInstitutionId: { bicfi: fixture.foreignBic } },
      });
      assert.deepEqual([foreign.status, foreign.body], [200, { partyNameMatch: 'NOAP' }]);
    } finally {
      stranger.close();
    }
  });
});
