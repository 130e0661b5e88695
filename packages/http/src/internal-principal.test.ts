import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  PRINCIPAL_HEADER,
  PRINCIPAL_SIGNATURE_HEADER,
  principalHeaders,
  verifyPrincipalHeaders,
} from './internal-principal.js';
import type { Principal } from './principal.js';

const secret = 'a-deployment-secret-of-32-characters!';
const now = new Date('2026-05-01T12:00:00.000Z');
const participant: Principal = {
  kind: 'certificate',
  participantId: 'PSDDE-BAFIN-123456',
  fingerprint: 'ab'.repeat(32),
  admin: false,
};

describe('the principal the edge signs for internal listeners', () => {
  it('given headers signed with the secret, then the principal is trusted', () => {
    const headers = principalHeaders(participant, secret, now);
    assert.deepEqual(verifyPrincipalHeaders(headers, secret, now)?.principal, participant);
  });

  it('given another secret, a changed principal, a stale signature or no headers, then nothing is trusted', () => {
    const headers = principalHeaders(participant, secret, now);
    assert.equal(
      verifyPrincipalHeaders(principalHeaders(participant, 'x'.repeat(32), now), secret, now),
      undefined,
    );
    const admin = Buffer.from(
      JSON.stringify({ principal: { ...participant, admin: true }, issuedAt: now.getTime() }),
    ).toString('base64url');
    assert.equal(
      verifyPrincipalHeaders({ ...headers, [PRINCIPAL_HEADER]: admin }, secret, now),
      undefined,
    );
    assert.equal(
      verifyPrincipalHeaders(headers, secret, new Date(now.getTime() + 60_000)),
      undefined,
    );
    assert.equal(verifyPrincipalHeaders({}, secret, now), undefined);
    assert.equal(
      verifyPrincipalHeaders({ [PRINCIPAL_HEADER]: headers[PRINCIPAL_HEADER] }, secret, now),
      undefined,
    );
    assert.equal(
      verifyPrincipalHeaders({ ...headers, [PRINCIPAL_SIGNATURE_HEADER]: 'AAAA' }, secret, now),
      undefined,
    );
  });

  it('an anonymous caller is carried as no principal, still signed', () => {
    const headers = principalHeaders(undefined, secret, now);
    assert.deepEqual(verifyPrincipalHeaders(headers, secret, now), {
      principal: null,
      issuedAt: now.getTime(),
    });
  });
});
