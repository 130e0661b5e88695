import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { germanIban } from '@vop/testing';
import { importCommandFor } from './import-chunk.js';
import {
  canonicalRecord,
  checkCsvHeader,
  csvRowToRecord,
  parseImportRecord,
} from './import-record.js';

const iban = germanIban(800_001);
const now = '2026-03-02T10:15:00.000Z';
const newAccountId = '3f2b8c4e-7a1d-4e9f-b6c5-2d8e0a1f9c7b';
const liveId = '9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f';

describe('an import record', () => {
  it('normalises the IBAN and names each refusal by field and code', () => {
    const spaced = iban.replace(/(.{4})/g, '$1 ').trim();
    const ok = parseImportRecord({ iban: spaced, name: ' Erika ' });
    assert.ok(ok.ok);
    assert.equal(ok.record.iban, iban);
    assert.equal(ok.record.name, 'Erika');
    const refusals: [unknown, string, string][] = [
      [{ iban, name: 'X', status: 'gone' }, 'status', 'INVALID_FIELD'],
      [{ iban: 'DE00', name: 'X' }, 'iban', 'INVALID_IBAN'],
      [{ name: 'X' }, 'iban', 'MISSING_FIELD'],
      [{ iban, name: 'X', extra: 1 }, 'extra', 'UNKNOWN_FIELD'],
      [{ iban, name: 'X', alternateNames: [''] }, 'alternateNames.0', 'INVALID_FIELD'],
      [null, 'row', 'NOT_A_RECORD'],
    ];
    for (const [raw, field, code] of refusals)
      assert.deepEqual(parseImportRecord(raw), { ok: false, error: { field, code } });
  });

  it('reads CSV cells: empty is absent, | separates names and scheme:id identifiers', () => {
    const header = ['iban', 'name', 'alternateNames', 'identifiers', 'status'];
    assert.deepEqual(csvRowToRecord(header, [iban, 'A B', 'C D | E F', 'lei:L1|DUNS:9', '']), {
      ok: true,
      raw: {
        iban,
        name: 'A B',
        alternateNames: ['C D', 'E F'],
        identifiers: { lei: 'L1', others: [{ scheme: 'DUNS', id: '9' }] },
      },
    });
    assert.equal(csvRowToRecord(header, [iban, 'A']).ok, false);
    assert.equal(checkCsvHeader(['name', 'iban']), undefined);
    assert.match(checkCsvHeader(['iban']) ?? '', /"name" is missing/);
    assert.match(checkCsvHeader(['iban', 'name', 'nme']) ?? '', /unknown column/);
  });

  it('has one canonical text whatever the order of identifiers keys or omitted defaults', () => {
    const a = canonicalRecord({ iban, name: 'N', status: 'active', alternateNames: [] });
    const b = canonicalRecord({ iban, name: 'N' });
    assert.equal(a, b);
    assert.notEqual(canonicalRecord({ iban, name: 'N', status: 'closed' }), b);
  });
});

describe('the command an import row asks for', () => {
  const record = { iban, name: 'Erika Mustermann', holderType: 'person' as const };
  const ids = { newAccountId, now };

  it('given no live account, then it opens one with the whole record', () => {
    assert.deepEqual(importCommandFor(record, undefined, 'fp', ids), {
      outcome: 'created',
      command: {
        type: 'OpenAccount',
        accountId: newAccountId,
        fields: { ...record, alternateNames: [], status: 'active' },
        now,
      },
    });
  });

  it('given a live account with the same fingerprint, then nothing', () => {
    const live = { accountId: liveId, fingerprint: 'fp' };
    assert.deepEqual(importCommandFor(record, live, 'fp', ids), { outcome: 'unchanged' });
  });

  it('given a live account with another or no fingerprint, then it updates the whole record', () => {
    for (const fingerprint of ['old', null]) {
      const live = { accountId: liveId, fingerprint };
      assert.deepEqual(importCommandFor(record, live, 'fp', ids), {
        outcome: 'updated',
        command: {
          type: 'UpdateAccount',
          accountId: liveId,
          changes: {
            name: record.name,
            holderType: 'person',
            alternateNames: [],
            status: 'active',
          },
          now,
        },
      });
    }
  });
});
