import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AccountCache, type AccountLoader } from './account-cache.js';
import type { MatchingAccount } from './account-projection.js';

const IBAN = 'DE89370400440532013000';
const OTHER_IBAN = 'DE02120300000000202051';

const account = (iban: string, name: string): MatchingAccount => ({
  accountId: '0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01',
  iban,
  name,
  holderType: 'person',
  alternateNames: [],
  identifiers: undefined,
  status: 'active',
});

/** A projection as a loader sees it: whatever `rows` holds when the load runs; counts what it was asked. */
function projection(rows: Map<string, MatchingAccount>) {
  const asked: string[][] = [];
  const load: AccountLoader = async (ibans) => {
    asked.push([...ibans]);
    return new Map(ibans.flatMap((iban) => rows.get(iban) ?? []).map((row) => [row.iban, row]));
  };
  return { asked, load };
}

/** A cache that hears of every change (the matching service trusts it once it listens). */
function trustedCache(options: ConstructorParameters<typeof AccountCache>[0] = {}): AccountCache {
  const cache = new AccountCache(options);
  cache.trust(true);
  return cache;
}

describe('AccountCache', () => {
  it('loads the IBANs it has not seen in one call, then answers them, absent ones too, from memory', async () => {
    const { asked, load } = projection(new Map([[IBAN, account(IBAN, 'Erika')]]));
    const cache = trustedCache();
    const first = await cache.find([IBAN, OTHER_IBAN, IBAN], load);
    assert.deepEqual(asked, [[IBAN, OTHER_IBAN]]);
    assert.equal(first.get(IBAN)?.name, 'Erika');
    assert.equal(first.has(OTHER_IBAN), false);
    const second = await cache.find([OTHER_IBAN, IBAN], load);
    assert.equal(asked.length, 1);
    assert.equal(second.get(IBAN)?.name, 'Erika');
    assert.equal(second.has(OTHER_IBAN), false);
  });

  it('after invalidate reads the projection again, so a change is seen by the next round', async () => {
    const rows = new Map([[IBAN, account(IBAN, 'Erika')]]);
    const { asked, load } = projection(rows);
    const cache = trustedCache();
    await cache.find([IBAN, OTHER_IBAN], load);
    rows.delete(IBAN);
    rows.set(OTHER_IBAN, account(OTHER_IBAN, 'Erika'));
    cache.invalidate();
    const after = await cache.find([IBAN, OTHER_IBAN], load);
    assert.equal(asked.length, 2);
    assert.equal(after.has(IBAN), false);
    assert.equal(after.get(OTHER_IBAN)?.name, 'Erika');
  });

  it('does not keep what a load read while the projection was being changed', async () => {
    const rows = new Map([[IBAN, account(IBAN, 'Erika')]]);
    const { asked, load } = projection(rows);
    const cache = trustedCache();
    let releaseLoad: () => void = () => undefined;
    const slowLoad: AccountLoader = async (ibans) => {
      const read = await load(ibans);
      await new Promise<void>((resolve) => (releaseLoad = resolve));
      return read;
    };
    const racing = cache.find([IBAN], slowLoad);
    await new Promise((resolve) => setImmediate(resolve));
    rows.set(IBAN, account(IBAN, 'Erika Renamed'));
    cache.invalidate();
    releaseLoad();
    assert.equal((await racing).get(IBAN)?.name, 'Erika');
    assert.equal(cache.size, 0);
    assert.equal((await cache.find([IBAN], load)).get(IBAN)?.name, 'Erika Renamed');
    assert.equal(asked.length, 2);
  });

  it('starts over when full rather than growing without bound', async () => {
    const { load } = projection(new Map());
    const cache = trustedCache({ maxEntries: 2 });
    await cache.find([IBAN, OTHER_IBAN], load);
    assert.equal(cache.size, 2);
    await cache.find(['FR1420041010050500013M02606'], load);
    assert.equal(cache.size, 1);
  });

  it('keeps nothing until trusted, and forgets everything when no longer trusted', async () => {
    const { asked, load } = projection(new Map([[IBAN, account(IBAN, 'Erika')]]));
    const cache = new AccountCache();
    await cache.find([IBAN], load);
    await cache.find([IBAN], load);
    assert.equal(asked.length, 2, 'untrusted: every round reads the projection');
    assert.equal(cache.size, 0);
    cache.trust(true);
    await cache.find([IBAN], load);
    await cache.find([IBAN], load);
    assert.equal(asked.length, 3);
    cache.trust(false);
    assert.equal(cache.size, 0);
    await cache.find([IBAN], load);
    assert.equal(asked.length, 4);
  });

  it('reads the projection again once its rows are older than maxAgeMs, even with no change heard', async () => {
    let now = 1_000;
    const { asked, load } = projection(new Map([[IBAN, account(IBAN, 'Erika')]]));
    const cache = trustedCache({ maxAgeMs: 60_000, now: () => now });
    await cache.find([IBAN], load);
    now += 60_000;
    await cache.find([IBAN], load);
    assert.equal(asked.length, 1, 'not older than maxAgeMs yet');
    now += 1;
    await cache.find([IBAN], load);
    assert.equal(asked.length, 2);
  });
});
