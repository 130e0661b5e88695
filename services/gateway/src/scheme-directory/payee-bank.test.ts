import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SchemeDirectorySnapshot, SchemeParticipant } from '@vop/contracts';
import { britishIban, germanIban } from '@vop/testing';
import { SchemeParticipantIndex, type DeploymentEnvironment } from './adherence.js';
import { BankCodeIndex } from './bank-code-table.js';
import { payeeBankFinder } from './payee-bank.js';

const now = new Date('2026-11-29T09:00:00.000Z');
const OURS = 'COBADEFFXXX';
const endpoint = (priority: number, host: string, extra: object = {}) => ({
  uri: `https://${host}/vop/v1`,
  priority,
  apiVersion: '1.1.1',
  ...extra,
});
const responder = (
  authorisationNumber: string,
  bics: string[],
  endpoints: SchemeParticipant['endpoints'],
  extra: Partial<SchemeParticipant> = {},
): SchemeParticipant => ({
  authorisationNumber,
  bics,
  environment: 'T',
  roles: ['requesting', 'responding'],
  ...(endpoints !== undefined && { endpoints }),
  ...extra,
});

const snapshot: SchemeDirectorySnapshot = {
  snapshotId: 'eds',
  participants: [
    // Priorities listed out of order: the finder answers them sorted.
    responder(
      'PSDDE-BAFIN-100001',
      ['DEUTDEFF', 'DEUTDEFF500'],
      [endpoint(2, 'b.deutsche.example'), endpoint(1, 'a.deutsche.example')],
    ),
    responder('PSDDE-BAFIN-100002', ['BYLADEMMXXX'], []),
    responder(
      'PSDDE-BAFIN-100003',
      ['GENODEF1XXX'],
      [
        endpoint(1, 'later.example', { validFrom: '2026-12-01T00:00:00+01:00' }),
        endpoint(2, 'old.example', { apiVersion: '1.0' }),
        endpoint(3, 'now.example', { validFrom: '2026-11-01T00:00:00Z', apiVersion: '1.1' }),
      ],
    ),
    responder(
      'PSDDE-BAFIN-100004',
      ['GENODEF2XXX'],
      [
        endpoint(1, 'later.example', { validFrom: '2026-12-01T00:00:00Z' }),
        endpoint(2, 'next.example', { apiVersion: '2.0.0' }),
      ],
    ),
    responder('PSDDE-BAFIN-100005', ['HELADEFFXXX'], [endpoint(1, 'asks-only.example')], {
      roles: ['requesting'],
    }),
    responder('PSDDE-BAFIN-100006', ['MARKDEFFXXX'], [endpoint(1, 'live.example')], {
      environment: 'L',
    }),
    // Loaded before roles existed: both.
    {
      authorisationNumber: 'PSDDE-BAFIN-100007',
      bics: ['SSKMDEMM'],
      environment: 'T',
      endpoints: [endpoint(1, 'old.sparkasse.example')],
    },
  ],
};

const bankCodes = new BankCodeIndex({
  DE: [
    ['10070000', 'DEUTDEFF500'],
    ['70150000', 'SSKMDEMMXXX'],
    ['50040000', OURS],
  ],
});

function finder(environment: DeploymentEnvironment = 'test', table = bankCodes) {
  const index = new SchemeParticipantIndex(1, snapshot, environment);
  return payeeBankFinder({
    ownBics: [OURS, 'VOPBDEFF'],
    directory: () => index,
    bankCodes: () => table,
  });
}

describe("finding a payee's bank", () => {
  const find = finder();

  it('one of our BICs, named by the caller in any form, is decided here', () => {
    assert.deepEqual(find.find(germanIban(1), 'cobadeff', now), { kind: 'ours', bic: OURS });
    assert.deepEqual(find.find(germanIban(1), 'VOPBDEFFXXX', now), {
      kind: 'ours',
      bic: 'VOPBDEFFXXX',
    });
  });

  it("another BIC is the responding participant's, at its endpoints by priority", () => {
    assert.deepEqual(find.find(germanIban(1), 'DEUTDEFFXXX', now), {
      kind: 'elsewhere',
      bic: 'DEUTDEFFXXX',
      participant: 'PSDDE-BAFIN-100001',
      endpoints: [
        { uri: 'https://a.deutsche.example/vop/v1', priority: 1, apiVersion: '1.1.1' },
        { uri: 'https://b.deutsche.example/vop/v1', priority: 2, apiVersion: '1.1.1' },
      ],
    });
  });

  it('a branch BIC is its holder’s, or falls back to its head office; an 8-character BIC is XXX', () => {
    const exact = find.find(germanIban(1), 'DEUTDEFF500', now);
    assert.equal(exact.kind === 'elsewhere' && exact.participant, 'PSDDE-BAFIN-100001');
    const branch = find.find(germanIban(1), 'SSKMDEMM123', now);
    assert.equal(branch.kind === 'elsewhere' && branch.participant, 'PSDDE-BAFIN-100007');
    assert.equal(branch.bic, 'SSKMDEMM123');
    const headOffice = find.find(germanIban(1), 'DEUTDEFF', now);
    assert.equal(headOffice.kind === 'elsewhere' && headOffice.bic, 'DEUTDEFFXXX');
    const unheldBranch = find.find(germanIban(1), 'GENODEF1500', now);
    assert.equal(
      unheldBranch.kind === 'elsewhere' && unheldBranch.participant,
      'PSDDE-BAFIN-100003',
    );
    assert.deepEqual(find.find(germanIban(1), 'BYLADEMM501', now), {
      kind: 'unroutable',
      bic: 'BYLADEMM501',
      reason: 'RESPONDER_NO_ENDPOINT',
    });
  });

  it('only endpoints valid now, in a version we speak (1.1), are offered', () => {
    const found = find.find(germanIban(1), 'GENODEF1XXX', now);
    assert.deepEqual(found.kind === 'elsewhere' && found.endpoints, [
      { uri: 'https://now.example/vop/v1', priority: 3, apiVersion: '1.1' },
    ]);
    const later = find.find(germanIban(1), 'GENODEF1XXX', new Date('2026-12-02T00:00:00Z'));
    assert.deepEqual(
      later.kind === 'elsewhere' && later.endpoints.map((each) => each.priority),
      [1, 3],
    );
    assert.deepEqual(find.find(germanIban(1), 'GENODEF2XXX', now), {
      kind: 'unroutable',
      bic: 'GENODEF2XXX',
      reason: 'RESPONDER_NO_ENDPOINT',
    });
  });

  it('a responding participant without endpoints cannot be asked', () => {
    assert.deepEqual(find.find(germanIban(1), 'BYLADEMMXXX', now), {
      kind: 'unroutable',
      bic: 'BYLADEMMXXX',
      reason: 'RESPONDER_NO_ENDPOINT',
    });
  });

  it('a BIC of no responder of this environment is unknown: requesting-only, other environment, absent', () => {
    for (const bic of ['HELADEFFXXX', 'MARKDEFFXXX', 'BNPAFRPPXXX'])
      assert.deepEqual(
        find.find(germanIban(1), bic, now),
        { kind: 'unroutable', bic, reason: 'RESPONDER_UNKNOWN' },
        bic,
      );
    const live = finder('live').find(germanIban(1), 'MARKDEFFXXX', now);
    assert.equal(live.kind === 'elsewhere' && live.participant, 'PSDDE-BAFIN-100006');
    assert.equal(finder('live').find(germanIban(1), 'DEUTDEFFXXX', now).kind, 'unroutable');
  });

  it('without a BIC, the bank-code table names it from the IBAN', () => {
    const routed = find.find(germanIban(42, '10070000'), undefined, now);
    assert.equal(routed.kind === 'elsewhere' && routed.participant, 'PSDDE-BAFIN-100001');
    assert.equal(routed.bic, 'DEUTDEFF500');
    assert.deepEqual(find.find(germanIban(42, '50040000'), undefined, now), {
      kind: 'ours',
      bic: OURS,
    });
    // The caller's BIC wins over the table's.
    assert.equal(find.find(germanIban(42, '10070000'), OURS, now).kind, 'ours');
  });

  it('without a BIC: a bank code the table lacks for a country it routes is unknown; another country is ours', () => {
    assert.deepEqual(find.find(germanIban(42, '20050550'), undefined, now), {
      kind: 'unroutable',
      bic: undefined,
      reason: 'RESPONDER_UNKNOWN',
    });
    assert.deepEqual(find.find(britishIban('601613', '31926819'), undefined, now), {
      kind: 'ours',
      bic: undefined,
    });
    const noTable = payeeBankFinder({
      ownBics: [OURS],
      directory: () => undefined,
      bankCodes: () => undefined,
    });
    assert.deepEqual(noTable.find(germanIban(42, '20050550'), undefined, now), {
      kind: 'ours',
      bic: undefined,
    });
  });

  it('with no directory loaded, a BIC not ours is unknown', () => {
    const noDirectory = payeeBankFinder({
      ownBics: [OURS],
      directory: () => undefined,
      bankCodes: () => bankCodes,
    });
    assert.deepEqual(noDirectory.find(germanIban(1), 'DEUTDEFFXXX', now), {
      kind: 'unroutable',
      bic: 'DEUTDEFFXXX',
      reason: 'RESPONDER_UNKNOWN',
    });
  });
});
