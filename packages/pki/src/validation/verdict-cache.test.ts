import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createCertificateAuthority } from '../certificate-authority.js';
import { issueCertificate } from '../issue-certificate.js';
import type { PemPair } from '../types.js';
import type { ClientCertificateCheck } from './types.js';
import { createClientCertificateValidator } from './validate-client-certificate.js';
import { cachingVerdicts, type CheckedChain } from './verdict-cache.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = new Date();
const at = (offsetMs: number): Date => new Date(NOW.getTime() + offsetMs);

describe('remembered client certificate verdicts', { timeout: 30_000 }, () => {
  let ca: PemPair;

  before(async () => {
    ca = await createCertificateAuthority({ commonName: 'Trusted Test CA' });
  });

  it('refuses a certificate accepted before once its notAfter has passed', async () => {
    const shortLived = await issueCertificate(ca, {
      commonName: 'short-lived',
      usage: 'client',
      notBefore: at(-DAY_MS),
      notAfter: at(DAY_MS),
    });
    const validate = createClientCertificateValidator(ca.certPem, { cachedVerdicts: 10 });
    assert.equal((await validate({ chain: [shortLived.certPem], now: NOW })).ok, true);
    assert.equal((await validate({ chain: [shortLived.certPem], now: at(DAY_MS / 2) })).ok, true);
    assert.deepEqual(await validate({ chain: [shortLived.certPem], now: at(2 * DAY_MS) }), {
      ok: false,
      reason: 'EXPIRED',
    });
  });

  it('refuses it too when the clock is set back before the period (NOT_YET_VALID)', async () => {
    const client = await issueCertificate(ca, { commonName: 'client', usage: 'client' });
    const validate = createClientCertificateValidator(ca.certPem, { cachedVerdicts: 10 });
    assert.equal((await validate({ chain: [client.certPem], now: NOW })).ok, true);
    assert.deepEqual(await validate({ chain: [client.certPem], now: at(-30 * DAY_MS) }), {
      ok: false,
      reason: 'NOT_YET_VALID',
    });
  });

  it('does not accept a certificate of another CA because one of the trusted CA was accepted', async () => {
    const trusted = await issueCertificate(ca, { commonName: 'same-name', usage: 'client' });
    const impostorCa = await createCertificateAuthority({ commonName: 'Trusted Test CA' });
    const impostor = await issueCertificate(impostorCa, {
      commonName: 'same-name',
      usage: 'client',
    });
    const validate = createClientCertificateValidator(ca.certPem, { cachedVerdicts: 10 });
    assert.equal((await validate({ chain: [trusted.certPem], now: NOW })).ok, true);
    assert.deepEqual(await validate({ chain: [impostor.certPem, impostorCa.certPem], now: NOW }), {
      ok: false,
      reason: 'UNTRUSTED',
    });
  });

  it('does not carry verdicts over to a validator of another trust bundle', async () => {
    const client = await issueCertificate(ca, { commonName: 'client', usage: 'client' });
    const otherCa = await createCertificateAuthority({ commonName: 'Other CA' });
    const first = createClientCertificateValidator(ca.certPem, { cachedVerdicts: 10 });
    assert.equal((await first({ chain: [client.certPem], now: NOW })).ok, true);
    const afterTheTrustStoreChanged = createClientCertificateValidator(otherCa.certPem, {
      cachedVerdicts: 10,
    });
    assert.deepEqual(await afterTheTrustStoreChanged({ chain: [client.certPem], now: NOW }), {
      ok: false,
      reason: 'UNTRUSTED',
    });
  });

  describe('what is checked again', () => {
    const accepted: CheckedChain = {
      verdict: {
        ok: true,
        participant: {
          participantId: 'p',
          commonName: 'p',
          fingerprint: 'f',
          psd2Roles: [],
          qualified: false,
        },
      },
      validity: { from: NOW.getTime() - DAY_MS, until: NOW.getTime() + DAY_MS },
    };
    const checking = (result: (input: ClientCertificateCheck) => CheckedChain) => {
      const checked: string[] = [];
      const validate = cachingVerdicts(async (input) => {
        checked.push(String(input.chain[0]));
        return result(input);
      }, 2);
      return { validate, checked };
    };

    it('checks an accepted chain once while it is valid, and each refusal every time', async () => {
      const { validate, checked } = checking((input) =>
        input.chain[0] === 'good' ? accepted : { verdict: { ok: false, reason: 'UNTRUSTED' } },
      );
      for (const chain of ['good', 'good', 'bad', 'bad', 'good'])
        await validate({ chain: [chain], now: NOW });
      assert.deepEqual(checked, ['good', 'bad', 'bad']);
    });

    it('keeps at most its bound of chains, forgetting the least recently used', async () => {
      const { validate, checked } = checking(() => accepted);
      for (const chain of ['a', 'b', 'a', 'c', 'a', 'b'])
        await validate({ chain: [chain], now: NOW });
      assert.deepEqual(checked, ['a', 'b', 'c', 'b']);
    });
  });
});
