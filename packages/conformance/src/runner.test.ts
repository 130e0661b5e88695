import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EPC_RESPONDER_CASES } from './epc-responder-cases.js';
import { placeholderFiller } from './placeholders.js';
import { checkResponse } from './runner.js';
import { PLACEHOLDER_FIXTURE } from './placeholder-fixture.test-support.js';

const fixture = PLACEHOLDER_FIXTURE;
const requestId = '3f0c6a1e-1d0b-4b8e-9a55-6c1c1a3c9a01';
const headers = { 'x-request-id': requestId, 'x-response-timestamp': '2026-11-25T10:00:00.000Z' };

describe('the EPC responding-side cases', () => {
  it('have unique ids, cover every group, and name only placeholders the fixture fills', () => {
    const ids = EPC_RESPONDER_CASES.map((each) => each.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(new Set(EPC_RESPONDER_CASES.map((each) => each.group)).size, 8);
    const fill = placeholderFiller(fixture, new Date('2026-11-25T10:00:00.000Z'));
    for (const each of EPC_RESPONDER_CASES) assert.doesNotThrow(() => fill(each.request), each.id);
  });

  it('fill the clock placeholders in the forms the cases need', () => {
    const fill = placeholderFiller(fixture, new Date('2026-11-25T10:00:00.000Z'));
    assert.deepEqual(
      fill(['{{now}}', '{{nowSeconds}}', '{{nowPlus0200}}', '{{today}}', '{{now-1h}}']),
      [
        '2026-11-25T10:00:00.000Z',
        '2026-11-25T10:00:00Z',
        '2026-11-25T12:00:00.000+02:00',
        '2026-11-25',
        '2026-11-25T09:00:00.000Z',
      ],
    );
    assert.throws(() => fill('{{nope}}'), /unknown placeholder/);
  });
});

describe('checkResponse', () => {
  it('passes an answer that meets the expectation and the rules of every answer', () => {
    const { failures } = checkResponse(
      { status: 200, partyNameMatch: 'CMTC', matchedName: 'present' },
      requestId,
      {
        status: 200,
        headers,
        text: JSON.stringify({ partyNameMatch: 'CMTC', matchedName: 'Erika Mustermann' }),
      },
    );
    assert.deepEqual(failures, []);
  });

  it('names what does not hold: status, echo, timestamp, code, matchedName outside CMTC', () => {
    const { failures } = checkResponse({ status: 400, errorCode: 'TIMESTAMP_INVALID' }, requestId, {
      status: 401,
      headers: { 'x-request-id': 'other' },
      text: JSON.stringify({ code: 'VOP_002' }),
    });
    assert.equal(failures.length, 6, failures.join('\n'));
    const outside = checkResponse({ status: 200 }, requestId, {
      status: 200,
      headers,
      text: JSON.stringify({ partyNameMatch: 'MTCH', matchedName: 'x' }),
    });
    assert.deepEqual(outside.failures, ['matchedName outside CMTC']);
  });
});
