import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatementNames } from './statement-names.js';

describe('names for statements run again and again', () => {
  it('names a text from its second run on, always with the same name, and another text with another', () => {
    const names = new StatementNames();
    assert.equal(names.nameFor('SELECT 1'), undefined, 'a one-off statement stays unnamed');
    const name = names.nameFor('SELECT 1');
    assert.match(name ?? '', /^vop_[\w-]{24}$/);
    assert.equal(names.nameFor('SELECT 1'), name);
    names.nameFor('SELECT 2');
    const other = names.nameFor('SELECT 2');
    assert.ok(other !== undefined && other !== name);
  });

  it('names no more texts than its limit, and keeps the names it gave', () => {
    const names = new StatementNames(2);
    const twice = (text: string) => (names.nameFor(text), names.nameFor(text));
    const first = twice('SELECT 1');
    const second = twice('SELECT 2');
    assert.ok(first !== undefined && second !== undefined);
    assert.equal(twice('SELECT 3'), undefined);
    assert.equal(names.nameFor('SELECT 1'), first);
  });
});
