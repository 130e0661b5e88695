import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_JSON_DEPTH, unsafeStringPath } from './hostile-input.js';

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
