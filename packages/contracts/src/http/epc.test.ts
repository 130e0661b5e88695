import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EpcError, EpcVerifyRequest, epcErrorType } from './epc.js';

const valid = {
  party: { name: 'Erika Mustermann' },
  partyAccount: { iban: 'DE89370400440532013000' },
  partyAgent: { financialInstitutionId: { bicfi: 'COBADEFFXXX' } },
  requestingAgent: { financialInstitutionId: { bicfi: 'DEUTDEFFXXX' } },
};

/** The first issue's path and message, or 'ok'. */
function verdict(body: unknown): string {
  const result = EpcVerifyRequest.safeParse(body);
  if (result.success) return 'ok';
  const [issue] = result.error.issues;
  return `${issue?.path.join('.')}: ${issue?.code === 'too_small' ? 'too_small' : issue?.message}`;
}

describe('EPC v1.1.1 request contract', () => {
  it('accepts a name, an identification under a listed scheme, one remittance entry', () => {
    assert.equal(verdict(valid), 'ok');
    assert.equal(verdict({ ...valid, party: { name: 'Łukasz Żółć-Ærø' } }), 'ok');
    assert.equal(
      verdict({
        ...valid,
        party: { identification: { others: [{ scheme: 'SRET', id: '73282932000074' }] } },
        unstructuredRemittanceInformation: ['INV-2026-001'],
      }),
      'ok',
    );
  });

  it('refuses characters outside the Latin set', () => {
    for (const name of ['Эрика', 'Έρικα', 'Erika 🏠'])
      assert.equal(
        verdict({ ...valid, party: { name } }),
        'party.name: NON_LATIN_CHARACTERS',
        name,
      );
    // Control characters are refused before the character set is looked at (packages/contracts/src/identifiers.ts).
    assert.equal(
      verdict({ ...valid, party: { name: 'Erika\u0000' } }),
      'party.name: INVALID_CHARACTERS',
    );
  });

  it('refuses empty fields', () => {
    assert.equal(verdict({ ...valid, party: { name: ' ' } }), 'party.name: EMPTY_FIELD');
    assert.equal(
      verdict({ ...valid, party: { identification: {} } }),
      'party.identification: EMPTY_FIELD',
    );
    assert.equal(
      verdict({ ...valid, unstructuredRemittanceInformation: [] }),
      'unstructuredRemittanceInformation: too_small',
    );
    assert.equal(
      verdict({ ...valid, party: { identification: { others: [] } } }),
      'party.identification.others: too_small',
    );
  });

  it('refuses a second remittance entry, a scheme outside the code list and a malformed SIREN', () => {
    assert.match(
      verdict({ ...valid, unstructuredRemittanceInformation: ['a', 'b'] }),
      /^unstructured/,
    );
    assert.match(
      verdict({ ...valid, party: { identification: { others: [{ scheme: 'ABCD', id: '1' }] } } }),
      /^party\.identification\.others\.0\.scheme/,
    );
    assert.equal(
      verdict({
        ...valid,
        party: { identification: { others: [{ scheme: 'SREN', id: '1234' }] } },
      }),
      'party.identification.others.0.id: INVALID_IDENTIFICATION',
    );
  });

  it('describes an error with a mandatory type and a code from the list', () => {
    assert.equal(
      EpcError.safeParse({ type: epcErrorType('CLIENT_INVALID'), code: 'CLIENT_INVALID' }).success,
      true,
    );
    assert.equal(EpcError.safeParse({ type: 'x', code: 'VOP_002' }).success, false);
    assert.equal(EpcError.safeParse({ code: 'FORMAT_ERROR' }).success, false);
  });
});
