import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { transportFailure } from './transport-failure.js';

const withCode = (code: string) => Object.assign(new Error(code), { code });

describe('what a failed exchange means', () => {
  it('given no connection was made, then unavailable and never sent (the next endpoint may be tried)', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'])
      assert.deepEqual(transportFailure(withCode(code), false), {
        reason: 'RESPONDER_UNAVAILABLE',
        code,
        neverSent: true,
      });
  });

  it('given a handshake that failed on either side, then a TLS failure, never sent', () => {
    for (const code of [
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'ERR_TLS_CERT_ALTNAME_INVALID',
      'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
    ])
      assert.deepEqual(transportFailure(withCode(code), false), {
        reason: 'RESPONDER_TLS_FAILURE',
        code,
        neverSent: true,
      });
  });

  it('given a reset, a closed socket or an unknown error, then unavailable and maybe received', () => {
    for (const error of [withCode('ECONNRESET'), withCode('UND_ERR_SOCKET'), new Error('odd')])
      assert.equal(transportFailure(error, false).neverSent, false);
  });

  it('given the deadline passed, then a timeout, maybe received, whatever the error', () => {
    assert.deepEqual(transportFailure(withCode('ECONNREFUSED'), true), {
      reason: 'RESPONDER_TIMEOUT',
      code: 'ECONNREFUSED',
      neverSent: false,
    });
  });

  it('given the code on the cause, then it is read there', () => {
    const wrapped = new Error('fetch failed', { cause: withCode('ECONNREFUSED') });
    assert.equal(transportFailure(wrapped, false).code, 'ECONNREFUSED');
  });
});
