import assert from 'node:assert/strict';
import https from 'node:https';

/**
 * The attacker's probe of issue 39: every mounted route, spelt every way an attacker would, sent by
 * every kind of caller that is not the admin. The oracle is written here from the rules of docs/security.md and docs/api.md, not
 * from the service's own table: a route answers at its path and under the `/v1` and `/vop/api/v1` base
 * forms, where a caller refused at the path is refused the same way; every other spelling reaches no
 * handler at all (refused, or no such endpoint).
 */

/** How a spelling relates to the route: the same route under a base form, or not the route at all. */
export type SpellingKind = 'base-form' | 'not-the-route';

export interface Spelling {
  path: string;
  how: string;
  kind: SpellingKind;
}

export interface Caller {
  name: string;
  cert?: { certPem: string; keyPem: string };
  headers?: Record<string, string>;
}

/**
 * Every caller that is not the admin: a participant's certificate, nobody, and an API key of each
 * scope (issued by the admin through `issue`, without a certificate).
 */
export async function probeCallers(
  participant: { certPem: string; keyPem: string },
  admin: {
    post(path: string, body: unknown): Promise<{ status: number; text: string; body: any }>;
  },
): Promise<Caller[]> {
  const keyWith = async (scope: string): Promise<Caller> => {
    const issued = await admin.post('/admin/api-keys', {
      participantId: 'PSDDE-BAFIN-123456',
      scopes: [scope],
    });
    assert.equal(issued.status, 201, issued.text);
    return {
      name: `an API key with the ${scope} scope`,
      headers: { authorization: `Bearer ${issued.body.secret as string}` },
    };
  };
  return [
    { name: 'a participant certificate', cert: participant },
    { name: 'no credential' },
    await keyWith('verify'),
    await keyWith('accounts'),
    await keyWith('analytics'),
  ];
}

export interface ProbeTarget {
  /** https://127.0.0.1:port */
  baseUrl: string;
  caPem: string;
}

export interface RawResponse {
  status: number;
  text: string;
  body: unknown;
}

const SAMPLE_PARAMETERS: Record<string, string> = {
  keyId: 'key_probe',
  accountId: 'acc_0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01',
  file: 'test.js',
};

/** A route's path with its parameters filled: `GET /admin/api-keys/:keyId` → `/admin/api-keys/key_probe`. */
export function samplePath(template: string): string {
  return template.replace(
    /:([A-Za-z_]+)/g,
    (_all, name: string) => SAMPLE_PARAMETERS[name] ?? 'probe1',
  );
}

/** A route at the root (the base forms are spellings of it): its method, template and sample path. */
export interface ProbedRoute {
  method: string;
  template: string;
  path: string;
}

/** Whether a path is one a mounted route serves as written (its parameters anything but a slash). */
export function servedAsWritten(routes: ProbedRoute[]): (path: string) => boolean {
  const patterns = routes.map(
    ({ template }) =>
      new RegExp(
        `^(?:/v1|/vop/api/v1)?${template
          .split('/')
          .map((segment) =>
            segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
          )
          .join('/')}$`,
      ),
  );
  return (path) => patterns.some((pattern) => pattern.test(path));
}

export function routesAtRoot(routes: string[]): ProbedRoute[] {
  const atRoot = routes
    .map((route) => route.split(' ', 2) as [string, string])
    .filter(([, template]) => !/^\/(?:v1|vop\/api\/v1)\//.test(template))
    .map(([method, template]) => ({ method, template, path: samplePath(template) }));
  return [...new Map(atRoot.map((route) => [`${route.method} ${route.path}`, route])).values()];
}

const percent = (character: string, lower = false): string => {
  const hex = character.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${lower ? hex : hex.toUpperCase()}`;
};

const capitalised = (path: string): string =>
  path
    .split('/')
    .map((segment) => segment.charAt(0).toUpperCase() + segment.slice(1))
    .join('/');

/** Every spelling of a route's path an attacker would try (case is changed in its fixed words only). */
export function spellingsOf(route: ProbedRoute, origin: string): Spelling[] {
  const { path } = route;
  const lastWord = route.template
    .split('/')
    .filter((segment) => segment.length > 0 && !segment.startsWith(':'))
    .at(-1);
  const lastWordUpper =
    lastWord === undefined
      ? path.toUpperCase()
      : samplePath(
          route.template.replace(
            new RegExp(`/${lastWord.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=/|$)`),
            `/${lastWord.slice(0, -1)}${lastWord.slice(-1).toUpperCase()}`,
          ),
        );
  const segments = path.split('/').slice(1);
  const [first = '', ...rest] = segments;
  const tail = rest.length > 0 ? `/${rest.join('/')}` : '';
  const letterAt = path.search(/[A-Za-z]/);
  const letter = path.charAt(letterAt);
  const other = (how: string, spelt: string): Spelling => ({
    path: spelt,
    how,
    kind: 'not-the-route',
  });
  const spellings: Spelling[] = [
    { path: `/v1${path}`, how: 'the /v1 base form', kind: 'base-form' },
    { path: `/vop/api/v1${path}`, how: 'the /vop/api/v1 base form', kind: 'base-form' },
    other('upper case', path.toUpperCase()),
    other('each segment capitalised', capitalised(path)),
    other('first segment in upper case', `/${first.toUpperCase()}${tail}`),
    other('the last letter of the last fixed word in upper case', lastWordUpper),
    other('a trailing slash', `${path}/`),
    other('two trailing slashes', `${path}//`),
    other('a doubled leading slash', `/${path}`),
    other('a doubled inner slash', `/${first}/${tail}`),
    other(
      'a letter percent-encoded',
      path.slice(0, letterAt) + percent(letter) + path.slice(letterAt + 1),
    ),
    other(
      'a letter percent-encoded in lower-case hex',
      path.slice(0, letterAt) + percent(letter, true) + path.slice(letterAt + 1),
    ),
    other(
      'every letter percent-encoded',
      path.replace(/[A-Za-z]/g, (c) => percent(c)),
    ),
    other('a slash percent-encoded', tail ? `/${first}%2F${tail.slice(1)}` : `${path}%2F`),
    other(
      'a slash percent-encoded, lower case',
      tail ? `/${first}%2f${tail.slice(1)}` : `${path}%2f`,
    ),
    other('a dot segment', `/.${path}`),
    other('a dot segment inside', `/${first}/.${tail}`),
    other('a parent segment', `/x/..${path}`),
    other('a parent segment from another family', `/test/..${path}`),
    other('a parent segment from the open probes', `/livez/..${path}`),
    other('percent-encoded dots', `/x/%2e%2e${path}`),
    other('percent-encoded dots in upper case', `/x/%2E%2E${path}`),
    other('a percent-encoded dot segment', `/%2e${path}`),
    other('a semicolon parameter at the end', `${path};x=1`),
    other('a semicolon parameter on the first segment', `/${first};x=1${tail}`),
    other('a semicolon alone', `${path};`),
    other('the /v1 base form in upper case', `/V1${path}`),
    other('the /vop/api/v1 base form in upper case', `/VOP/API/V1${path}`),
    other('the /vop/api/v1 base form capitalised', `/Vop/Api/V1${path}`),
    other('the /v1 base form with the path in upper case', `/v1${path.toUpperCase()}`),
    other('the /v1 base form with a doubled slash', `/v1/${path}`),
    other('the /v1 base form with a trailing slash', `/v1${path}/`),
    other('the /vop/api/v1 base form with a parent segment', `/vop/api/v1/x/..${path}`),
    other('the absolute form', `${origin}${path}`),
    other('the absolute form in upper case', `${origin}${path.toUpperCase()}`),
  ];
  return spellings.filter((spelling) => spelling.path !== path);
}

/** Sends the path exactly as written (no URL normalisation), over mutual TLS when the caller has a certificate. */
export function sendRaw(
  target: ProbeTarget,
  caller: Caller,
  method: string,
  path: string,
  agent: https.Agent,
): Promise<RawResponse> {
  const url = new URL(target.baseUrl);
  const body = ['POST', 'PUT', 'PATCH'].includes(method) ? '{}' : undefined;
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent,
        headers: {
          ...caller.headers,
          ...(body !== undefined && {
            'content-type': 'application/json',
            'content-length': String(body.length),
          }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: response.statusCode ?? 0, text, body: parsed });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

export function agentFor(target: ProbeTarget, caller: Caller): https.Agent {
  return new https.Agent({
    keepAlive: true,
    ca: target.caPem,
    ...(caller.cert && { cert: caller.cert.certPem, key: caller.cert.keyPem }),
  });
}

const NO_SUCH_ENDPOINT = 'No such endpoint';
const REFUSED = new Set([401, 403]);

/** The human text of an error body in any of the four formats. */
function messageOf(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  if (typeof record.message === 'string') return record.message;
  if (typeof record.error === 'object' && record.error !== null)
    return (record.error as Record<string, unknown>).message;
  return record.detail;
}

/**
 * A spelling that is not the route reaches no handler: the caller is refused (401, 403), or no route
 * answers (the edge's own "No such endpoint", in whichever format covers the path, or 405 where another
 * route takes the path with a parameter). Any other answer came from a handler.
 */
function reachedNoHandler(answer: RawResponse): boolean {
  if (REFUSED.has(answer.status)) return true;
  if (answer.status === 405) return errorCodeOf(answer.body) === 'METHOD_NOT_ALLOWED';
  return (
    (answer.status === 404 || answer.status === 400) && messageOf(answer.body) === NO_SUCH_ENDPOINT
  );
}

/** The error code of a body in any of the four formats, to compare refusals across spellings. */
function errorCodeOf(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  if (typeof record.error === 'string') return record.error;
  if (typeof record.error === 'object' && record.error !== null)
    return (record.error as Record<string, unknown>).code;
  return record.code;
}

export interface ProbeSummary {
  requests: number;
  refusedAsNotTheRoute: number;
  baseFormsCompared: number;
}

/**
 * Sends every spelling of every route as each caller and asserts the oracle; collects every breach
 * before failing, so one run shows all of them.
 */
export async function probeSpellings(
  target: ProbeTarget,
  callers: Caller[],
  routes: ProbedRoute[],
): Promise<ProbeSummary> {
  const breaches: string[] = [];
  const summary: ProbeSummary = { requests: 0, refusedAsNotTheRoute: 0, baseFormsCompared: 0 };
  const origin = target.baseUrl;
  // A spelling that is itself another route's path (`/webhooks/dead-letterS` is `/webhooks/:webhookId`)
  // is that route's request, not an attack on this one.
  const isRoutePath = servedAsWritten(routes);
  for (const caller of callers) {
    const agent = agentFor(target, caller);
    try {
      for (const route of routes) {
        const { method, path } = route;
        const atPath = await sendRaw(target, caller, method, path, agent);
        summary.requests++;
        for (const spelling of spellingsOf(route, origin)) {
          const answer = await sendRaw(target, caller, method, spelling.path, agent);
          summary.requests++;
          const where = `${caller.name}: ${method} ${spelling.path} (${spelling.how} of ${path})`;
          if (spelling.kind === 'not-the-route') {
            if (isRoutePath(spelling.path)) continue;
            if (!reachedNoHandler(answer))
              breaches.push(`${where} answered ${answer.status} ${answer.text.slice(0, 160)}`);
            else summary.refusedAsNotTheRoute++;
            continue;
          }
          summary.baseFormsCompared++;
          const refusedAtPath = REFUSED.has(atPath.status);
          if (refusedAtPath !== REFUSED.has(answer.status))
            breaches.push(
              `${where} answered ${answer.status} where the path answered ${atPath.status}: ${answer.text.slice(0, 160)}`,
            );
          else if (
            refusedAtPath &&
            (atPath.status !== answer.status ||
              errorCodeOf(atPath.body) !== errorCodeOf(answer.body))
          )
            breaches.push(
              `${where} was refused otherwise than the path: ${answer.status} ${answer.text.slice(0, 160)} vs ${atPath.status} ${atPath.text.slice(0, 160)}`,
            );
        }
      }
    } finally {
      agent.destroy();
    }
  }
  assert.deepEqual(breaches, [], `${breaches.length} spellings breached the route's family`);
  return summary;
}
