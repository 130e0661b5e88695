import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from './errors.js';
import { MAX_JSON_DEPTH, refuseDeepJson, unsafeStringPath } from './hostile-input.js';

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
