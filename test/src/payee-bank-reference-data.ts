import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DevPki } from '@vop/pki';
import {
  germanIban,
  startScriptedResponder,
  type HttpsClient,
  type ScriptedResponder,
} from '@vop/testing';

// The requesting side (issue 40) seen from one deployment (bank A, embedded or distributed): bank B is
// a scripted EPC responder on 127.0.0.1 that answers, fails and misbehaves on demand.
export const BANK_B = { bic: 'SIBBDEFFXXX', code: '20020020', participant: 'PSDXX-SIBB-000001' };
/** A bank code the bank-code table gives one of our own BICs. */
export const OWN_CODE = '37040044';
/** A German bank code no row of the bank-code table holds (Germany is routed: RESPONDER_UNKNOWN). */
export const UNLISTED_CODE = '30030030';
/** The holder of the account bank A holds at its own IBAN. */
export const OWN_HOLDER = 'Jonas Weber';
export const payeeAtB = (n: number) => germanIban(n, BANK_B.code);

/** Bank B, its server certificate from bank A's development CA (which bank A's requester trusts). */
export async function startBankB(pki: DevPki): Promise<ScriptedResponder> {
  const [certPem, keyPem] = await Promise.all([
    readFile(pki.caPath, 'utf8'),
    readFile(path.join(pki.dir, 'ca-key.pem'), 'utf8'),
  ]);
  return startScriptedResponder({ ca: { certPem, keyPem } });
}

/**
 * Loads at bank A, as its admin: a directory listing bank B at the scripted responder, a bank-code
 * table routing OWN_CODE to us and BANK_B.code to bank B, and an account at `ownIban`.
 */
export async function loadBankB(
  admin: HttpsClient,
  bankB: ScriptedResponder,
  ownIban: string,
): Promise<void> {
  const directory = await admin.put('/admin/scheme-directory', {
    snapshotId: 'payee-banks-test',
    participants: [
      {
        authorisationNumber: 'PSDXX-DEV-000001',
        bics: ['DEUTDEFFXXX'],
        environment: 'T',
        roles: ['requesting'],
      },
      {
        authorisationNumber: BANK_B.participant,
        bics: [BANK_B.bic],
        environment: 'T',
        roles: ['requesting', 'responding'],
        endpoints: [{ uri: bankB.uri, priority: 1, apiVersion: '1.1.1' }],
      },
    ],
  });
  assert.equal(directory.status, 200, directory.text);
  const codes = await admin.put('/admin/bank-codes', undefined, {
    rawBody: `country,bank_code,bic\nDE,${OWN_CODE},COBADEFFXXX\nDE,${BANK_B.code},${BANK_B.bic}\n`,
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(codes.status, 200, codes.text);
  const created = await admin.post('/accounts', { iban: ownIban, name: OWN_HOLDER });
  assert.equal(created.status, 201, created.text);
}
