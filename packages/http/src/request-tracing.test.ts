import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createLogger, startTracing, type Tracing } from '@vop/observability';
import { logLines } from '@vop/testing';
import { createHttpApp } from './app.js';
import { requestMetadata } from './request-context.js';
import { createRouter } from './router.js';

describe('a request in its trace (tracing started, no exporter)', () => {
  let server: Server;
  let base: string;
  let tracing: Tracing;
  const { lines, destination } = logLines();
  const metadataSeen: Array<Record<string, string>> = [];

  before(async () => {
    tracing = startTracing({ service: 'spec', env: {} });
    const logger = createLogger({ service: 'spec', level: 'debug', destination });
    const routes = createRouter();
    routes.post('/verify', async (req, res) => {
      // After the body was parsed and after awaiting, as a route that stores something does.
      await delay(5);
      logger.info({ step: 'recorded' }, 'verification recorded');
      metadataSeen.push(requestMetadata(req));
      res.status(201).json({ status: 'PENDING' });
    });
    const app = createHttpApp({ logger, respondingPsp: 'VOPBDEFFXXX', routers: [routes] });
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await tracing.shutdown();
  });

  it('continues the caller trace in the log lines and the events of the request', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    // The body arrives in two parts, so the parser finishes on a later socket event, outside the
    // request's context.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const sent = request(
        `${base}/verify`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': '12',
            traceparent: `00-${traceId}-${callerSpan}-01`,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      sent.on('error', reject);
      sent.write('{"name":');
      void delay(50).then(() => sent.end('"x"}'));
    });
    assert.equal(status, 201);
    const recorded = lines.find((line) => line['step'] === 'recorded');
    assert.equal(recorded?.['trace_id'], traceId, 'the route log line carries the trace id');
    const serverSpan = recorded?.['span_id'];
    assert.match(String(serverSpan), /^[0-9a-f]{16}$/);
    assert.notEqual(serverSpan, callerSpan, 'the server span is a child of the caller span');
    const [metadata] = metadataSeen;
    assert.equal(metadata?.['traceparent'], `00-${traceId}-${String(serverSpan)}-00`);
    for (
      let turn = 0;
      turn < 100 && !lines.some((line) => line['msg'] === 'request answered');
      turn++
    )
      await delay(10);
    const answered = lines.find((line) => line['msg'] === 'request answered');
    assert.equal(answered?.['trace_id'], traceId);
    assert.equal(answered?.['route'], '/verify');
  });

  it('starts a trace of its own for a request without traceparent', async () => {
    const before = lines.length;
    const response = await fetch(`${base}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(response.status, 201);
    const recorded = lines.slice(before).find((line) => line['step'] === 'recorded');
    assert.match(String(recorded?.['trace_id']), /^[0-9a-f]{32}$/);
  });
});
