import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalPath } from './base-paths.js';
import { ApiError, errors, statusIn, toErrorBody } from './errors.js';
import { familyFor } from './route-families.js';

describe('error format by path (the route-family table)', () => {
  it('picks scheme, flat or nested from the path, under every base form', () => {
    const cases: [string, string][] = [
      ['/vop/verify', 'scheme'],
      ['/v1/vop/verify', 'scheme'],
      ['/vop/api/v1/vop/verify', 'scheme'],
      ['/verify', 'flat'],
      ['/verify/abc', 'flat'],
      ['/api/verify', 'flat'],
      ['/api/v1/batch/1', 'flat'],
      ['/admin/stats', 'flat'],
      ['/health/detailed', 'flat'],
      ['/accounts', 'nested'],
      ['/api/accounts/1', 'nested'],
      ['/v1/api/accounts/1', 'nested'],
      ['/webhooks', 'nested'],
      ['/vop/v1/payee-verifications', 'epc'],
      ['/vop/api/v1/vop/v1/payee-verifications', 'epc'],
    ];
    for (const [path, format] of cases) assert.equal(familyFor(path).errorFormat, format, path);
    assert.equal(canonicalPath('/vop/api/v1/accounts'), '/accounts');
  });

  it('renders one failure in the three bodies', () => {
    const error = new ApiError(400, 'MISSING_FIELD', 'Missing required field: party.name', {
      field: 'party.name',
      reason: 'MISSING_FIELD',
    });
    assert.deepEqual(
      toErrorBody(error, { format: 'flat', respondingPsp: 'B', requestId: undefined }),
      {
        error: 'MISSING_FIELD',
        message: 'Missing required field: party.name',
        field: 'party.name',
      },
    );
    assert.deepEqual(
      toErrorBody(error, { format: 'nested', respondingPsp: 'B', requestId: undefined }),
      {
        error: {
          code: 'INVALID_REQUEST',
          message: 'Missing required field: party.name',
          details: { field: 'party.name', reason: 'MISSING_FIELD' },
        },
      },
    );
    const scheme = toErrorBody(error, {
      format: 'scheme',
      respondingPsp: 'BANKDEFFXXX',
      requestId: 'r-1',
    }) as Record<string, any>;
    assert.equal(scheme.error.code, 'VOP_004');
    assert.equal(scheme.error.category, 'VALIDATION_ERROR');
    assert.deepEqual(scheme.error.details, { field: 'party.name', reason: 'MISSING_FIELD' });
    assert.deepEqual(scheme.metadata, { respondingPSP: 'BANKDEFFXXX', originalRequest: 'r-1' });
    assert.match(scheme.errorReference, /^[0-9a-f-]{36}$/);
  });

  it('a timeout on a scheme path is VOP_003 and elsewhere carries retry_after', () => {
    const timeout = new ApiError(504, 'TIMEOUT', 't', { retryAfterSeconds: 1 });
    assert.equal(
      (toErrorBody(timeout, { format: 'scheme', respondingPsp: 'B', requestId: undefined }) as any)
        .error.code,
      'VOP_003',
    );
    const unavailable = new ApiError(503, 'SERVICE_UNAVAILABLE', 'u', { retryAfterSeconds: 2 });
    assert.deepEqual(
      toErrorBody(unavailable, { format: 'flat', respondingPsp: 'B', requestId: undefined }),
      { error: 'SERVICE_UNAVAILABLE', message: 'u', retry_after: 2 },
    );
  });

  it('renders the EPC VerificationOfPayeeError with 400, 401 or 500 only', () => {
    const context = { format: 'epc' as const, respondingPsp: 'B', requestId: undefined };
    const missing = new ApiError(400, 'MISSING_FIELD', 'Missing required field: party.name', {
      field: 'party.name',
      reason: 'MISSING_FIELD',
    });
    assert.deepEqual(toErrorBody(missing, context), {
      type: 'urn:vop:epc:error:format-error',
      code: 'FORMAT_ERROR',
      title: 'Bad Request',
      status: 400,
      detail: 'Missing required field: party.name (MISSING_FIELD)',
    });
    const stale = new ApiError(400, 'INVALID_REQUEST', 'too old', { epcCode: 'TIMESTAMP_INVALID' });
    assert.equal((toErrorBody(stale, context) as { code: string }).code, 'TIMESTAMP_INVALID');
    const cases: [ApiError, number, string][] = [
      [errors.unauthorized(), 401, 'CLIENT_INVALID'],
      [errors.accessDenied(), 401, 'CLIENT_INVALID'],
      [errors.methodNotAllowed('GET', ['POST']), 400, 'FORMAT_ERROR'],
      [errors.unsupportedMediaType(), 400, 'FORMAT_ERROR'],
      [errors.tooLarge(), 400, 'FORMAT_ERROR'],
      [errors.timeout('late'), 500, 'FORMAT_ERROR'],
      [errors.unavailable('busy'), 500, 'FORMAT_ERROR'],
      [new ApiError(429, 'RATE_LIMIT_EXCEEDED', 'slow down'), 500, 'FORMAT_ERROR'],
      [errors.internal(), 500, 'FORMAT_ERROR'],
    ];
    for (const [error, status, code] of cases) {
      const body = toErrorBody(error, context) as { code: string; status: number; type: string };
      assert.deepEqual([statusIn('epc', error), body.status, body.code], [status, status, code]);
      assert.ok(body.type.length > 0);
    }
    assert.equal(statusIn('scheme', errors.accessDenied()), 403);
  });
});
