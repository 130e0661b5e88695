import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, REDACTED } from './logger.js';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  const lines = (): Record<string, unknown>[] =>
    chunks
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { stream, lines };
}

describe('createLogger', () => {
  it('writes one JSON object per line with the service, level name and message', () => {
    const { stream, lines } = capture();
    createLogger({ service: 'gateway', destination: stream }).info(
      { requestId: 'r1' },
      'verification accepted',
    );
    const [line] = lines();
    assert.equal(line?.['service'], 'gateway');
    assert.equal(line?.['level'], 'info');
    assert.equal(line?.['msg'], 'verification accepted');
    assert.equal(line?.['requestId'], 'r1');
    assert.equal(typeof line?.['time'], 'string');
  });

  it('redacts names, IBANs, request bodies and credentials wherever they commonly appear', () => {
    const { stream, lines } = capture();
    const logger = createLogger({ service: 'gateway', destination: stream });
    logger.info(
      {
        payee: { name: 'John Smith', iban: 'DE89370400440532013000' },
        party: { name: 'Jane Doe' },
        partyAccount: { iban: 'FR1420041010050500013M02606' },
        accountName: 'Acme Trading Ltd',
        accountNumber: '31926819',
        req: {
          method: 'POST',
          body: { name: 'John Smith' },
          headers: { authorization: 'Bearer vop_test_secret' },
        },
        headers: { authorization: 'Bearer vop_live_secret' },
      },
      'request received',
    );
    const raw = JSON.stringify(lines());
    for (const secret of [
      'John Smith',
      'DE89370400440532013000',
      'Jane Doe',
      'FR1420041010050500013M02606',
      'Acme Trading Ltd',
      '31926819',
      'vop_test_secret',
      'vop_live_secret',
    ]) {
      assert.ok(!raw.includes(secret), `${secret} must not be logged`);
    }
    const [line] = lines() as Array<{
      payee: { name: string };
      req: { method: string; body: string };
    }>;
    assert.equal(line?.payee.name, REDACTED);
    assert.equal(line?.req.body, REDACTED);
    assert.equal(line?.req.method, 'POST', 'fields that are not personal data stay readable');
  });

  it('honours the configured level', () => {
    const { stream, lines } = capture();
    const logger = createLogger({ service: 'matching', level: 'warn', destination: stream });
    logger.info('not written');
    logger.warn('written');
    assert.deepEqual(
      lines().map((line) => line['msg']),
      ['written'],
    );
  });
  it('logs an error by type, code and stack frames, never the input it repeats', () => {
    const { stream, lines } = capture();
    const databaseError = Object.assign(
      new Error('invalid input syntax for type uuid: "Erika\u0000Mustermann"'),
      {
        code: '22P02',
        detail: 'Token "Erika" is invalid.',
        where: 'JSON data, line 1: {"name":"Erika Mustermann',
        internalQuery: 'SELECT 1',
      },
    );
    createLogger({ service: 'gateway', destination: stream }).error(
      { err: new Error('append failed', { cause: databaseError }) },
      'unhandled request error',
    );
    const [line] = lines();
    const raw = JSON.stringify(line);
    assert.ok(!raw.includes('Erika'), raw);
    assert.ok(!raw.includes('Mustermann'), raw);
    const err = line?.['err'] as { type: string; cause: { code: string; message: string } };
    assert.equal(err.type, 'Error');
    assert.equal(err.cause.code, '22P02');
    assert.equal(err.cause.message, 'invalid input syntax for type uuid: "…"');
  });
});

describe('createLogger inside a span', () => {
  it('writes the trace and span ids of the active span on every line', async () => {
    const { startTracing } = await import('./tracing.js');
    const { trace } = await import('@opentelemetry/api');
    const tracing = startTracing({ service: 'test', env: {} });
    try {
      const { stream, lines } = capture();
      const logger = createLogger({ service: 'gateway', destination: stream });
      const ids = trace.getTracer('test').startActiveSpan('request', (span) => {
        logger.info('inside');
        span.end();
        return span.spanContext();
      });
      logger.info('outside');
      const [inside, outside] = lines();
      assert.match(ids.traceId, /^[0-9a-f]{32}$/);
      assert.equal(inside?.['trace_id'], ids.traceId);
      assert.equal(inside?.['span_id'], ids.spanId);
      assert.equal(outside?.['trace_id'], undefined);
    } finally {
      await tracing.shutdown();
    }
  });
});
