import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scanJson } from './json-scan.js';

const MAX_DEPTH = 32;

/** The scan's verdict on a raw body: the duplicated key's path, 'too deep', or undefined. */
function verdict(raw: string): string | undefined {
  const hazard = scanJson(Buffer.from(raw), MAX_DEPTH);
  if (hazard === undefined) return undefined;
  return 'tooDeep' in hazard ? 'too deep' : hazard.duplicateKey.join('.');
}

describe('a key twice in one JSON object', () => {
  const manyKeys = Array.from({ length: 40 }, (_, index) => `"k${index}":${index}`).join(',');
  const cases: [string, string, string | undefined][] = [
    ['at the top', '{"iban":"DE89","iban":"GB33"}', 'iban'],
    ['nested', '{"party":{"name":"Erika","name":"Mallory"}}', 'party.name'],
    ['the same after unescaping', '{"name":"Erika","\\u006eame":"Mallory"}', 'name'],
    ['escaped both times, differently', '{"\\u0061b":1,"A":2,"a\\u0062":3}', 'ab'],
    ['an escaped solidus', '{"a/b":1,"a\\/b":2}', 'a/b'],
    ['non-ASCII, raw and escaped', '{"é":1,"\\u00e9":2}', 'é'],
    ['an emoji, raw and as a surrogate pair', '{"😀":1,"\\ud83d\\ude00":2}', '😀'],
    ['in an array of objects', '{"others":[{"id":"1"},{"id":"2","id":"3"}]}', 'others.1.id'],
    ['in a body that is an array', '[{"a":1},[{"b":1,"b":2}]]', '1.0.b'],
    ['deep inside', '{"a":[[{"b":{"c":[1,{"d":1,"d":2}]}}]]}', 'a.0.0.b.c.1.d'],
    ['after a nested object', '{"a":{"x":1},"b":2,"a":3}', 'a'],
    ['among many keys', `{${manyKeys},"k7":0}`, 'k7'],
    ['among many keys, escaped', `{${manyKeys},"k\\u0033\\u0039":0}`, 'k39'],
    ['with an escaped quote in it', '{"say \\"hi\\"":1,"say \\"hi\\"":2}', 'say "hi"'],
    ['the same key in two objects', '{"a":{"id":1},"b":{"id":2},"id":3}', undefined],
    ['the same key in each element', '[{"id":1,"n":"x"},{"id":2,"n":"y"}]', undefined],
    ['a value equal to a key', '{"a":"a","b":"a","c":{"a":"b"}}', undefined],
    ['keys differing only in case', '{"Name":1,"name":2,"NAME":3}', undefined],
    ['keys equal but for an escape that changes them', '{"a\\n":1,"a\\\\n":2}', undefined],
    ['brackets and quotes inside strings', '{"a":"}{\\"a\\":1,","b":"[[[","a\\"":1}', undefined],
    ['many distinct keys', `{${manyKeys}}`, undefined],
  ];
  for (const [name, raw, path] of cases)
    it(`${name}: ${path === undefined ? 'passes' : `refused, naming ${path}`}`, () => {
      assert.equal(verdict(raw), path);
    });

  it('a scheme request as banks send it passes (financialInstitutionId twice, in two objects)', () => {
    const body = {
      party: {
        name: 'Erika',
        identification: {
          others: [
            { scheme: 'A', id: '1' },
            { scheme: 'B', id: '2' },
          ],
        },
      },
      partyAccount: { iban: 'DE89370400440532013000' },
      partyAgent: { financialInstitutionId: { bicfi: 'COBADEFFXXX' } },
      requestingAgent: { financialInstitutionId: { bicfi: 'DEUTDEFFXXX' } },
    };
    assert.equal(verdict(JSON.stringify(body)), undefined);
  });

  it('what JSON.stringify writes never has a duplicate, however nested', () => {
    let seed = 39;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const value = (depth: number): unknown => {
      const pick = random();
      if (depth > 5 || pick < 0.3) return pick < 0.1 ? 'a"b\\}{' : Math.floor(pick * 100);
      if (pick < 0.6)
        return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      const keys = ['a', 'b', 'é', 'a"', '\u0000', 'k'.repeat(Math.floor(random() * 30))];
      return Object.fromEntries(keys.map((key) => [key, value(depth + 1)]));
    };
    for (let round = 0; round < 200; round++)
      assert.equal(verdict(JSON.stringify(value(0))), undefined);
  });
});

describe('JSON nested deeper than allowed', () => {
  const cases: [string, string, string | undefined][] = [
    ['at the limit', `${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}`, undefined],
    ['one level more', '['.repeat(MAX_DEPTH + 1), 'too deep'],
    ['objects and arrays mixed', `${'{"a":['.repeat(MAX_DEPTH / 2)}{}`, 'too deep'],
    ['brackets inside a string are text', `{"a":"${'['.repeat(100)}"}`, undefined],
    ['after an escaped quote, still text', `{"a":"\\"${'{'.repeat(100)}"}`, undefined],
    ['closing more than it opened (malformed)', `]]]]${'['.repeat(MAX_DEPTH)}`, undefined],
  ];
  for (const [name, raw, found] of cases)
    it(`${name}: ${found ?? 'passes'}`, () => {
      assert.equal(verdict(raw), found);
    });
});
