import assert from 'node:assert/strict';
import http, { type IncomingHttpHeaders, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { START, type Checkpoint, type EventStore, type NewEvent } from '@vop/event-store';
import type { RecordedEvent, SqlExecutor } from '@vop/event-store';

/** What one run gets from `setup`: its own store, the app under test, and how to close them. */
export interface HttpSpecEnvironment {
  store: EventStore;
  app: RequestListener;
  close: () => Promise<void>;
  /** The inline projections the app runs when it appends; `given` events go through them too. */
  project?: (events: RecordedEvent[], tx: SqlExecutor) => Promise<void>;
}

export type GivenStream = { streamId: string; events: NewEvent[] };

/** body: parsed JSON; the text when it is not JSON; undefined when empty. */
export type HttpResponse = { status: number; headers: IncomingHttpHeaders; body: unknown };

/** body: sent as JSON; rawBody: sent as it is (name its content-type in headers). */
export type HttpRequestInit = {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
};
/** send(method, path, init), get(path), post(path, body), put(path, body), delete(path). */
export type HttpSpecRequest = ReturnType<typeof requestTo>;

/** Throws (an assertion) when the value is wrong. */
export type Check<T, Env> = (value: T, env: Env) => void | Promise<void>;

/** A new event as expected; its stream is compared only when named. */
export type ExpectedEvent = { type: string; data: unknown; streamId?: string };

export interface HttpExpectation<Env, Body = unknown> {
  status: number;
  /** Each compared exactly; headers not named are not checked. */
  headers?: Record<string, string>;
  /** The whole body (deep equality), or a check of the parts that matter. */
  body?: Body | Check<Body, Env>;
  /** Every event appended after `given`, in commit order (deep equal), or a check; [] for none. */
  events: ExpectedEvent[] | Check<RecordedEvent[], Env>;
}

type Given<Env> = GivenStream[] | ((env: Env) => GivenStream[] | Promise<GivenStream[]>);
type When<Env> = (request: HttpSpecRequest, env: Env) => Promise<HttpResponse>;

/**
 * Given/when/then over HTTP, in process (after Emmett's ApiSpecification): given streams in a fresh
 * store, when a real request reaches the app on 127.0.0.1, then this response and these new events.
 */
export function httpSpec<Env extends HttpSpecEnvironment>(options: { setup: () => Promise<Env> }) {
  return {
    given: (given: Given<Env>) => ({
      when: (when: When<Env>) => ({
        then: <Body = unknown>(expected: HttpExpectation<Env, Body>): Promise<void> =>
          run(options.setup, given, when, expected),
      }),
    }),
  };
}

async function run<Env extends HttpSpecEnvironment, Body>(
  setup: () => Promise<Env>,
  given: Given<Env>,
  when: When<Env>,
  expected: HttpExpectation<Env, Body>,
): Promise<void> {
  const env = await setup();
  const server = http.createServer(env.app);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject).listen(0, '127.0.0.1', resolve);
    });
    const streams = typeof given === 'function' ? await given(env) : given;
    await env.store.sql.transaction(async (tx) => {
      for (const { streamId, events } of streams) {
        const appended = await env.store.append(streamId, events, { expectedVersion: 'any', tx });
        await env.project?.(appended.events, tx);
      }
    });
    const { checkpoint } = await readAfter(env.store, START);
    const response = await when(requestTo((server.address() as AddressInfo).port), env);
    const { events } = await readAfter(env.store, checkpoint);
    const { status, body } = response;
    assert.equal(status, expected.status, `status; body: ${JSON.stringify(body)}`);
    for (const [name, value] of Object.entries(expected.headers ?? {})) {
      assert.equal(response.headers[name.toLowerCase()], value, `header ${name}`);
    }
    if (typeof expected.body === 'function') {
      await (expected.body as Check<Body, Env>)(body as Body, env);
    } else if ('body' in expected) assert.deepStrictEqual(body, expected.body);
    const want = expected.events;
    if (typeof want === 'function') await want(events, env);
    else
      assert.deepStrictEqual(
        events.map((event, i) => comparable(event, want[i])),
        want,
      );
  } finally {
    // close() alone would wait for a request still running when a check failed.
    await new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
    await env.close();
  }
}

function comparable(event: RecordedEvent, expected?: ExpectedEvent): ExpectedEvent {
  const { type, data, streamId } = event;
  return expected?.streamId === undefined ? { type, data } : { streamId, type, data };
}

async function readAfter(store: EventStore, after: Checkpoint) {
  const events: RecordedEvent[] = [];
  for (let checkpoint = after; ;) {
    const page = await store.readAll({ after: checkpoint, limit: 500 });
    if (page.events.length === 0) return { events, checkpoint };
    events.push(...page.events);
    checkpoint = page.checkpoint;
  }
}

function requestTo(port: number) {
  const send = (method: string, path: string, init: HttpRequestInit = {}) =>
    new Promise<HttpResponse>((resolve, reject) => {
      const json = init.body !== undefined && { 'content-type': 'application/json' };
      const payload =
        init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
      const headers = { ...json, ...init.headers };
      const options = { host: '127.0.0.1', port, method, path, headers, agent: false };
      const req = http.request(options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk)).on('error', reject);
        res.on('end', () => {
          const body = parse(Buffer.concat(chunks).toString('utf8'));
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      });
      req.on('error', reject).end(payload);
    });
  return {
    send,
    get: (path: string) => send('GET', path),
    post: (path: string, body?: unknown) => send('POST', path, { body }),
    put: (path: string, body?: unknown) => send('PUT', path, { body }),
    delete: (path: string) => send('DELETE', path),
  };
}

function parse(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}
