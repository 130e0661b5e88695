import { describe, it } from 'node:test';
import { deciderSpec } from '@vop/testing';
import { LoadVersionMismatchError } from './load-version-mismatch.js';
import { bankCodeTableDecider, type BankCodeTableLoaded } from './bank-code-decider.js';
import type { BankCodes } from './bank-code-csv.js';

const now = '2026-11-29T08:00:00.000Z';
const codes = (bic: string): BankCodes => ({ DE: [['10070000', bic]] });
const loaded = (version: number, bic: string, tableId?: string): BankCodeTableLoaded => ({
  type: 'BankCodeTableLoaded',
  data: {
    version,
    ...(tableId !== undefined && { tableId }),
    loadedAt: now,
    loadedBy: 'BANK-ADMIN',
    entries: 1,
    codes: codes(bic),
  },
});
const load = (bic: string, extra: { expectedVersion?: number; tableId?: string } = {}) => ({
  type: 'LoadBankCodeTable' as const,
  codes: codes(bic),
  entries: 1,
  now,
  loadedBy: 'BANK-ADMIN',
  ...extra,
});

const spec = deciderSpec(bankCodeTableDecider);

describe('bank-code table decider', () => {
  it('given nothing, when a table is loaded, then it is version 1 with its name', () => {
    spec
      .given([])
      .when(load('DEUTDEBBXXX', { tableId: 'blz-2026-12' }))
      .then([loaded(1, 'DEUTDEBBXXX', 'blz-2026-12')]);
  });

  it('given version 2, when another is loaded on top of it, then it replaces it as version 3', () => {
    spec
      .given([loaded(1, 'DEUTDEBBXXX'), loaded(2, 'DEUTDEFFXXX')])
      .when(load('COBADEFFXXX', { expectedVersion: 2 }))
      .then([loaded(3, 'COBADEFFXXX')]);
  });

  it('given version 2, when a load expects version 1, then it is refused', () => {
    spec
      .given([loaded(1, 'DEUTDEBBXXX'), loaded(2, 'DEUTDEFFXXX')])
      .when(load('COBADEFFXXX', { expectedVersion: 1 }))
      .thenThrows(LoadVersionMismatchError);
  });

  it('given a table, when a load expects none (version 0), then it is refused', () => {
    spec
      .given([loaded(1, 'DEUTDEBBXXX')])
      .when(load('COBADEFFXXX', { expectedVersion: 0 }))
      .thenThrows(LoadVersionMismatchError);
  });
});
