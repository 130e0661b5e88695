import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeParams, encodeLongStrings, LONG_STRING_CHARS } from './pglite-encoded-params.js';

describe('long string parameters encoded on the caller’s thread', () => {
  const long = (char: string) => char.repeat(LONG_STRING_CHARS);

  it('given only short strings and other values, then they cross as they are and nothing is transferred', () => {
    const params = ['short', 42, null, new Date(0), ['a'], long('x').slice(1)];
    const sent = encodeLongStrings(params);
    assert.deepEqual(sent.params, params);
    assert.equal(sent.encoded, undefined);
    assert.deepEqual(sent.transfer, []);
  });

  it('given long strings, then each is its UTF-8 in one buffer of its own, its place left null', () => {
    const json = JSON.stringify([{ name: long('é') }]);
    const emoji = long('😀');
    const sent = encodeLongStrings(['short', json, 7, emoji]);
    assert.deepEqual(sent.params, ['short', null, 7, null]);
    assert.deepEqual(
      sent.encoded?.map(({ index, utf8 }) => [index, Buffer.from(utf8).toString('utf8')]),
      [
        [1, json],
        [3, emoji],
      ],
    );
    // Exactly the encoded bytes, in a buffer no other Buffer shares (it is detached when transferred).
    assert.equal(sent.transfer.length, 1);
    assert.equal(sent.transfer[0]!.byteLength, Buffer.byteLength(json) + Buffer.byteLength(emoji));
    assert.ok(sent.encoded!.every(({ utf8 }) => utf8.buffer === sent.transfer[0]));
  });

  it('given the encoded parameters, then decoding gives back the values sent', () => {
    const params = ['a', long('ß'), null, 3];
    const sent = encodeLongStrings(params);
    assert.deepEqual(decodeParams(sent.params, sent.encoded), params);
  });
});
