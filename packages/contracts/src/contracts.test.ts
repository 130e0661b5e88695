import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildEventJsonSchemas,
  buildOpenApiDocument,
  confidenceWord,
  CreateAccountRequest,
  Iban,
  outcomeTable,
  SchemeVerifyRequest,
  VerificationIdParam,
} from './index.js';

describe('IBAN contract', () => {
  it('accepts valid IBANs in print form and returns the electronic form', () => {
    assert.equal(Iban.parse('de89 3704 0044 0532 0130 00'), 'DE89370400440532013000');
    assert.equal(Iban.parse('FR14 2004 1010 0505 0001 3M02 606'), 'FR1420041010050500013M02606');
  });
  it('rejects a wrong check digit and a wrong country length with INVALID_IBAN', () => {
    for (const bad of ['DE89370400440532013001', 'DE8937040044053201300', 'XX00123', '']) {
      const result = Iban.safeParse(bad);
      assert.equal(result.success, false, bad);
      assert.equal(result.error?.issues[0]?.message, 'INVALID_IBAN');
    }
  });
});

describe('request contracts', () => {
  it('refuse unknown fields (strict bodies)', () => {
    const result = CreateAccountRequest.safeParse({
      iban: 'DE89370400440532013000',
      name: 'A',
      colour: 'blue',
    });
    assert.equal(result.success, false);
    assert.equal(result.error?.issues[0]?.code, 'unrecognized_keys');
  });
  it('scheme request validates the BICs', () => {
    const body = (bic: string) => ({
      party: { name: 'A' },
      partyAccount: { iban: 'DE89370400440532013000' },
      partyAgent: { financialInstitutionId: { bicfi: 'COBADEFFXXX' } },
      requestingAgent: { financialInstitutionId: { bicfi: bic } },
    });
    assert.equal(SchemeVerifyRequest.safeParse(body('DEUTDEFF')).success, true);
    assert.equal(
      SchemeVerifyRequest.safeParse(body('NOT A BIC')).error?.issues[0]?.message,
      'INVALID_BIC',
    );
  });
  it('verification ids are accepted bare and in the vrf_ form', () => {
    const id = '6f1f6a43-5a52-4c1f-8f57-0d5d3f3d1a11';
    assert.equal(VerificationIdParam.parse(id), id);
    assert.equal(VerificationIdParam.parse(`vrf_${id}`), id);
    assert.equal(VerificationIdParam.safeParse('vrf_nope').success, false);
  });
});

describe('outcome table', () => {
  it('maps each internal outcome to one word per family', () => {
    assert.equal(outcomeTable.MTCH.requestResult, 'MATCH');
    assert.equal(outcomeTable.CMTC.simple, 'PARTIAL_MATCH');
    assert.equal(outcomeTable.NMTC.accountNumber, 'NONE');
    assert.equal(outcomeTable.NOAP.simple, 'ERROR');
    assert.equal(outcomeTable.MTCH.immediate, true);
    assert.equal(outcomeTable.CMTC.immediate, false);
  });
  it('confidence words follow the thresholds', () => {
    assert.deepEqual([0.95, 0.9, 0.89, 0.7, 0.69, 0].map(confidenceWord), [
      'HIGH',
      'HIGH',
      'MEDIUM',
      'MEDIUM',
      'LOW',
      'LOW',
    ]);
  });
});

describe('generated documents', () => {
  it('OpenAPI 3.1 has the paths and the schemas from the zod contracts', () => {
    const document = buildOpenApiDocument('test');
    assert.equal(document.openapi, '3.1.0');
    assert.ok(document.paths?.['/vop/verify']?.post);
    assert.ok(document.paths?.['/api/accounts/{id}']?.delete);
    assert.ok(document.paths?.['/analytics/usage']?.get?.parameters?.length);
    assert.ok(document.paths?.['/admin/verifications']?.get);
    assert.ok(document.components?.schemas?.SchemeVerifyRequest);
  });

  it('OpenAPI documents the EPC path: its headers, and VerificationOfPayeeError on 400, 401 and 500', () => {
    const document = buildOpenApiDocument('test');
    const epc = document.paths?.['/vop/v1/payee-verifications']?.post;
    assert.ok(epc);
    const headerNames = (epc.parameters ?? []).map((parameter) =>
      'name' in parameter ? `${parameter.in}:${parameter.name}:${parameter.required}` : '',
    );
    assert.deepEqual(headerNames.sort(), [
      'header:X-Request-ID:true',
      'header:X-Request-Timestamp:true',
    ]);
    for (const status of ['400', '401', '500']) {
      const response = epc.responses?.[status] as
        { content: Record<string, { schema: { $ref?: string } }>; headers?: object } | undefined;
      assert.equal(
        response?.content['application/json']?.schema.$ref,
        '#/components/schemas/VerificationOfPayeeError',
        status,
      );
      assert.ok(response?.headers && 'X-Response-Timestamp' in response.headers, status);
    }
    assert.equal(epc.responses?.['403'], undefined);
    const error = document.components?.schemas?.VerificationOfPayeeError as {
      required?: string[];
      properties?: { code?: { enum?: string[] } };
    };
    assert.deepEqual(error.required?.sort(), ['code', 'type']);
    assert.deepEqual(error.properties?.code?.enum, [
      'FORMAT_ERROR',
      'CLIENT_INVALID',
      'CLIENT_INCONSISTENT',
      'TIMESTAMP_INVALID',
    ]);
    assert.ok(document.paths?.['/vop/verify']?.post?.responses?.['401']);
    assert.ok(document.paths?.['/admin/scheme-directory']?.put);
    const bankCodes = document.paths?.['/admin/bank-codes'];
    assert.ok(bankCodes?.get);
    const body = bankCodes?.put?.requestBody;
    assert.ok(body && 'content' in body && body.content['text/csv']);
  });
  it('event JSON schemas describe the envelope', () => {
    const schemas = buildEventJsonSchemas() as Record<
      string,
      { required?: string[]; oneOf?: unknown[] }
    >;
    assert.ok(schemas.IntegrationEnvelope?.required?.includes('eventId'));
    // The core-banking feed's contract: one alternative per change type.
    assert.equal(schemas.CoreBankingAccountChange?.oneOf?.length, 4);
  });
});
