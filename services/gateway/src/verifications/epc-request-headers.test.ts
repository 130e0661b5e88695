import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { epcHeaderRefusal } from './epc-request-headers.js';

const now = new Date('2026-11-25T10:00:00.000Z');
const requestId = '3f0c6a1e-1d0b-4b8e-9a55-6c1c1a3c9a01';

function refusalOf(headers: Record<string, string>) {
  const refusal = epcHeaderRefusal((name) => headers[name], now);
  return refusal && { epcCode: refusal.extra.epcCode, field: refusal.extra.field };
}

describe('EPC request headers', () => {
  it('accepts a UUID and a timestamp with milliseconds, in UTC or with an offset', () => {
    for (const timestamp of [
      '2026-11-25T10:00:00.000Z',
      '2026-11-25T11:00:00.123+01:00',
      '2026-11-25T05:30:00.000-04:30',
      '2026-11-25T10:00:00.123456Z',
    ])
      assert.equal(
        refusalOf({ 'x-request-id': requestId, 'x-request-timestamp': timestamp }),
        undefined,
        timestamp,
      );
  });

  it('refuses a missing or malformed X-Request-ID with FORMAT_ERROR', () => {
    const timestamp = { 'x-request-timestamp': '2026-11-25T10:00:00.000Z' };
    for (const headers of [timestamp, { ...timestamp, 'x-request-id': 'abc' }])
      assert.deepEqual(refusalOf(headers), { epcCode: 'FORMAT_ERROR', field: 'X-Request-ID' });
  });

  it('refuses a missing, malformed or distant X-Request-Timestamp with TIMESTAMP_INVALID', () => {
    for (const timestamp of [
      undefined,
      '2026-11-25T10:00:00Z',
      '2026-11-25T10:00:00.000',
      '2026-11-25',
      '2026-11-25T10:00:00.000+0100',
      '2026-13-45T25:61:00.000Z',
      '2026-11-25T09:54:59.999Z',
      '2026-11-25T10:05:00.001Z',
    ]) {
      const headers: Record<string, string> = { 'x-request-id': requestId };
      if (timestamp !== undefined) headers['x-request-timestamp'] = timestamp;
      assert.deepEqual(
        refusalOf(headers),
        { epcCode: 'TIMESTAMP_INVALID', field: 'X-Request-Timestamp' },
        String(timestamp),
      );
    }
  });
});
