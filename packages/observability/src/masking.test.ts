import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskIban, maskName } from './masking.js';

describe('maskIban', () => {
  it('keeps country code, check digits and the last four characters', () => {
    assert.equal(maskIban('DE89370400440532013000'), 'DE89**************3000');
  });

  it('ignores the spaces of the printed form', () => {
    assert.equal(maskIban('GB33 BUKB 2020 1555 5555 55'), 'GB33**************5555');
  });

  it('never returns the whole value, however short the input', () => {
    for (const value of [
      'DE89370400440532013000',
      'NO9386011117947',
      'DE8937040044',
      'AB12',
      'X',
      '',
    ]) {
      const masked = maskIban(value);
      assert.equal(masked.length, value.length);
      if (value !== '') assert.notEqual(masked, value);
    }
  });
});

describe('maskName', () => {
  it('keeps the first letter of each word', () => {
    assert.equal(maskName('John Smith'), 'J*** S****');
  });

  it('masks non-Latin and accented names by letter, not by byte', () => {
    assert.equal(maskName('Zoë Ødegård'), 'Z** Ø******');
    assert.equal(maskName('Иван Петров'), 'И*** П*****');
  });

  it('masks single-letter words completely and collapses spacing', () => {
    assert.equal(maskName('  J   Smith '), '* S****');
  });

  it('never returns any word of the name unmasked', () => {
    for (const name of ['John Smith', 'A B', 'Müller GmbH', 'Jo']) {
      const maskedWords = maskName(name).split(' ');
      for (const word of name.split(/\s+/)) {
        assert.ok(!maskedWords.includes(word), `${word} must be masked`);
      }
    }
  });
});
