import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from './errors.js';
import { MAX_JSON_DEPTH, refuseDeepJson, scanJson, unsafeStringPath } from './hostile-input.js';

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = { next: value };
  return value;
}

describe('unsafe strings in a parsed body', () => {
  const cases: [string, unknown, string[] | undefined][] = [
    ['a safe scheme body', { party: { name: 'Erika Mustermann' }, iban: 'DE89 3704' }, undefined],
    ['tabs and line breaks', { note: 'a\tb\r\nc' }, undefined],
    ['a NUL in a nested value', { party: { name: 'Eri\u0000ka' } }, ['party', 'name']],
    ['a control character in a key', { ['na\u0001me']: 'x' }, ['na\u0001me']],
    ['U+FFFD in an array element', { names: ['ok', 'bad\uFFFD'] }, ['names', '1']],
    ['an unpaired surrogate', { name: 'x\uD800y' }, ['name']],
    ['a paired surrogate', { name: '\uD83D\uDE00' }, undefined],
    ['a C1 control character at the top', 'x\u0085', []],
    ['numbers, booleans and null', { a: 1, b: true, c: null, d: [2, false] }, undefined],
    [
      'a right-to-left override in a nested name',
      { party: { name: 'Eri\u202Eka' } },
      ['party', 'name'],
    ],
    ['a zero-width space in a key', { ['na\u200Bme']: 'x' }, ['na\u200Bme']],
    ['a Hangul filler as a whole name', { names: ['ok', '\u3164'] }, ['names', '1']],
    ['a Persian name with its non-joiner', { name: 'می\u200Cخواهم' }, undefined],
    ['a joiner between Latin letters', { name: 'Eri\u200Dka' }, ['name']],
    [
      'an own __proto__ key from JSON.parse',
      JSON.parse('{"__proto__": {"x": "\\u0002"}}'),
      ['__proto__', 'x'],
    ],
  ];

  for (const [name, value, path] of cases)
    it(`${name}: ${path === undefined ? 'nothing found' : 'found, with its path'}`, () => {
      assert.deepEqual(unsafeStringPath(value), path);
    });

  it('looks no deeper than refuseDeepJson lets a body be', () => {
    assert.equal(unsafeStringPath(nested(MAX_JSON_DEPTH + 2, '\u0000')), undefined);
    assert.deepEqual(
      unsafeStringPath(nested(MAX_JSON_DEPTH, '\u0000')),
      Array.from({ length: MAX_JSON_DEPTH }, () => 'next'),
    );
  });

  it('does not look at inherited properties', () => {
    const inherited = Object.create({ name: '\u0000' }) as Record<string, unknown>;
    inherited['own'] = 'fine';
    assert.equal(unsafeStringPath(inherited), undefined);
  });
});

/** The scan's verdict on a raw body: the duplicated key's path, 'too deep', or undefined. */
function verdict(raw: string): string | undefined {
  const hazard = scanJson(Buffer.from(raw), MAX_JSON_DEPTH);
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

describe('body-parser verify hook', () => {
  const refusal = (raw: string, encoding = 'utf-8') => {
    try {
      refuseDeepJson({} as never, undefined, Buffer.from(raw), encoding);
      return undefined;
    } catch (error) {
      return error as { type: string; refusal?: ApiError };
    }
  };

  it('refuses a duplicate key as INVALID_REQUEST naming its path, reason DUPLICATE_KEY', () => {
    const thrown = refusal('{"party":{"name":"a","name":"b"}}');
    assert.equal(thrown?.type, 'entity.duplicate.key');
    assert.ok(thrown.refusal instanceof ApiError);
    assert.equal(thrown.refusal.status, 400);
    assert.equal(thrown.refusal.code, 'INVALID_REQUEST');
    assert.deepEqual(thrown.refusal.extra, { field: 'party.name', reason: 'DUPLICATE_KEY' });
  });

  it('refuses nesting deeper than the limit, brackets in strings aside', () => {
    assert.equal(refusal('['.repeat(MAX_JSON_DEPTH + 1))?.type, 'entity.too.deep');
    assert.equal(refusal(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`), undefined);
    assert.equal(refusal(`{"a":"${'['.repeat(100)}"}`), undefined);
  });

  it('refuses a body in another encoding than UTF-8, which the scan could not read', () => {
    for (const encoding of ['utf-16le', 'utf-16', 'utf-7', 'utf-32'])
      assert.equal(refusal('{"a":1}', encoding)?.type, 'charset.unsupported', encoding);
  });
});
