import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EpcRequestHeaders, EpcVerifyRequest } from '@vop/contracts';
import { verificationRequestBody, verificationRequestHeaders } from './verification-request.js';

const check = {
  iban: 'DE89370400440532013000',
  partyAgentBic: 'COBADEFFXXX',
  requestingAgentBic: 'VOPBDEFFXXX',
};

describe('the request a requesting PSP sends', () => {
  it('given a name check, then the body holds the name only and both agents, valid by the contract', () => {
    const body = verificationRequestBody({ ...check, name: 'Erika Mustermann' });

    assert.deepEqual(body, {
      party: { name: 'Erika Mustermann' },
      partyAccount: { iban: 'DE89370400440532013000' },
      partyAgent: { financialInstitutionId: { bicfi: 'COBADEFFXXX' } },
      requestingAgent: { financialInstitutionId: { bicfi: 'VOPBDEFFXXX' } },
    });
    assert.ok(EpcVerifyRequest.safeParse(body).success);
  });

  it('given an identification and a remittance, then both are sent and no name', () => {
    const body = verificationRequestBody({
      ...check,
      identification: { lei: '529900T8BM49AURSDO55' },
      remittance: 'Invoice 42',
    });

    assert.deepEqual(body.party, { identification: { lei: '529900T8BM49AURSDO55' } });
    assert.deepEqual(body.unstructuredRemittanceInformation, ['Invoice 42']);
    assert.ok(EpcVerifyRequest.safeParse(body).success);
  });

  it('then the headers carry the id and a timestamp in the form a responder accepts', () => {
    const headers = verificationRequestHeaders(
      '3f0c6a1e-1d0b-4b8e-9a55-6c1c1a3c9a01',
      new Date('2026-11-29T09:00:00Z'),
    );

    assert.equal(headers['x-request-timestamp'], '2026-11-29T09:00:00.000Z');
    assert.ok(
      EpcRequestHeaders.safeParse({
        'X-Request-ID': headers['x-request-id'],
        'X-Request-Timestamp': headers['x-request-timestamp'],
      }).success,
    );
  });
});
