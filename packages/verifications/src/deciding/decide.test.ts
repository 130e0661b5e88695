import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VerificationRequestedData } from '@vop/contracts';
import type { MatchingAccount } from './account-projection.js';
import { decideOutcome, matchIdentification } from './decide.js';
import { createNameMatcher } from '@vop/name-matching';

const matcher = createNameMatcher();
const now = new Date('2026-02-01T10:00:00.000Z');
const request = (
  name: string,
  extra: Partial<VerificationRequestedData> = {},
): VerificationRequestedData => ({
  verificationId: '6f1f6a43-5a52-4c1f-8f57-0d5d3f3d1a11',
  family: 'scheme',
  iban: 'DE89370400440532013000',
  name,
  requestedAt: now.toISOString(),
  ...extra,
});
const account: MatchingAccount = {
  accountId: 'a1d4b3f2-1111-4222-8333-944455556666',
  iban: 'DE89370400440532013000',
  name: 'Jürgen Groß',
  holderType: 'person',
  alternateNames: ['Anna Groß'],
  identifiers: { lei: '5299000J2N45DDNE4Y28' },
  status: 'active',
};

describe('decideOutcome', () => {
  it('given no account for the IBAN, then NOAP with no name disclosed', () => {
    const completed = decideOutcome(request('Jürgen Groß'), undefined, matcher, now);
    assert.equal(completed.outcome, 'NOAP');
    assert.equal(completed.matchedName, undefined);
    assert.deepEqual(completed.reasons, ['ACCOUNT_NOT_FOUND']);
  });

  it('given a closed account, then NOAP', () => {
    const completed = decideOutcome(
      request('Jürgen Groß'),
      { ...account, status: 'closed' },
      matcher,
      now,
    );
    assert.equal(completed.outcome, 'NOAP');
    assert.deepEqual(completed.reasons, ['ACCOUNT_NOT_ACTIVE']);
  });

  it('given the holder name with other case, accents and spacing, then MTCH with the held name', () => {
    const completed = decideOutcome(
      request('  JURGEN   gross '.replace('gross', 'groß')),
      account,
      matcher,
      now,
    );
    assert.equal(completed.outcome, 'MTCH');
    assert.equal(completed.matchedName, 'Jürgen Groß');
    assert.equal(completed.completedAt, now.toISOString());
  });

  it('given a joint holder name, then MTCH discloses that holder', () => {
    const completed = decideOutcome(
      request('anna gross'.replace('ss', 'ß')),
      account,
      matcher,
      now,
    );
    assert.equal(completed.outcome, 'MTCH');
    assert.equal(completed.matchedName, 'Anna Groß');
  });

  it('given another name, then NMTC and no name disclosed', () => {
    const completed = decideOutcome(request('Max Mustermann'), account, matcher, now);
    assert.equal(completed.outcome, 'NMTC');
    assert.equal(completed.matchedName, undefined);
  });

  it('given identification, then idMatch compares it with the account identifiers', () => {
    assert.equal(
      decideOutcome(
        request('Jürgen Groß', { identification: { lei: '5299000J2N45DDNE4Y28' } }),
        account,
        matcher,
        now,
      ).idMatch,
      'MTCH',
    );
    assert.equal(
      decideOutcome(
        request('Jürgen Groß', { identification: { lei: '529900T8BM49AURSDO55' } }),
        account,
        matcher,
        now,
      ).idMatch,
      'NMTC',
    );
    assert.equal(decideOutcome(request('Jürgen Groß'), account, matcher, now).idMatch, undefined);
  });
});

describe('matchIdentification', () => {
  it('is NOAP when the account holds nothing of that kind', () => {
    assert.equal(matchIdentification({ lei: '5299000J2N45DDNE4Y28' }, undefined), 'NOAP');
    assert.equal(
      matchIdentification({ others: [{ scheme: 'VAT', id: 'DE123' }] }, { lei: 'X' }),
      'NOAP',
    );
  });
  it('compares other identifiers within their scheme', () => {
    assert.equal(
      matchIdentification(
        { others: [{ scheme: 'VAT', id: 'DE123' }] },
        { others: [{ scheme: 'VAT', id: 'DE123' }] },
      ),
      'MTCH',
    );
    assert.equal(
      matchIdentification(
        { others: [{ scheme: 'VAT', id: 'DE999' }] },
        { others: [{ scheme: 'VAT', id: 'DE123' }] },
      ),
      'NMTC',
    );
  });
});
