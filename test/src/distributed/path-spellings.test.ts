import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { runEmbedded } from '../embedded/fixtures.js';
import {
  agentFor,
  probeCallers,
  probeSpellings,
  routesAtRoot,
  sendRaw,
  type Caller,
  type ProbedRoute,
  type ProbeTarget,
} from '../security/path-spellings.js';
import { startCluster, type Cluster } from './cluster.js';

/**
 * Issue 39 through the distributed gateway's forwarding: the families matching, batch, webhooks and
 * analytics own travel to their internal listeners, which judge the path again. The same probe as
 * test/src/security/path-spellings.test.ts, on real Kafka and PostgreSQL.
 */
describe('no spelling of a path reaches a handler under another family (distributed, forwarded)', () => {
  let cluster: Cluster;
  let target: ProbeTarget;
  let callers: Caller[];
  let routes: ProbedRoute[];

  before(async () => {
    // The routes every service mounts, all composed in one app: the embedded default's.
    const embedded = await runEmbedded();
    routes = routesAtRoot(embedded.service.routes);
    await embedded.stop();

    cluster = await startCluster({ prefix: 'spell' });
    target = { baseUrl: cluster.baseUrl, caPem: cluster.caPem };
    callers = await probeCallers(
      {
        certPem: await readFile(cluster.pki.clientCertPath, 'utf8'),
        keyPem: await readFile(cluster.pki.clientKeyPath, 'utf8'),
      },
      cluster.admin,
    );
  });

  after(async () => {
    await cluster?.stop();
  });

  it('reaches no handler by any other spelling, and refuses each base form as the path itself', async () => {
    const forwarded = routes.filter(({ path }) =>
      /^\/(?:admin\/matching|admin\/stats|admin\/verifications|analytics|account|api\/v1\/batch|verify\/batch|webhooks)/.test(
        path,
      ),
    );
    assert.ok(forwarded.length >= 12, `forwarded routes probed: ${forwarded.length}`);
    const summary = await probeSpellings(target, callers, routes);
    assert.ok(summary.refusedAsNotTheRoute > 1000, JSON.stringify(summary));
  });

  it("answers the issue's own attacks on forwarded families 404 at the edge, and the internal listeners refuse them too", async () => {
    const participant = callers[0] as Caller;
    const agent = agentFor(target, participant);
    try {
      for (const [method, spelt] of [
        ['POST', '/ADMIN/matching/explain'],
        ['GET', '/ADMIN/stats'],
        ['GET', '/Analytics/usage'],
        ['GET', '/V1/WEBHOOKS'],
        ['GET', '/api/v1/batch/probe1/'],
      ] as const) {
        const answer = await sendRaw(target, participant, method, spelt, agent);
        assert.equal(answer.status, 404, `${method} ${spelt}`);
        assert.deepEqual(answer.body, { error: 'NOT_FOUND', message: 'No such endpoint' });
      }
    } finally {
      agent.destroy();
    }
    // Straight at an internal listener (a caller inside the deployment network): no signed
    // principal, so nothing but the probes; a spelling no row covers is 404 there as well.
    const matching = cluster.internalUrls.get('matching') as string;
    const unsigned = await fetch(`${matching}/admin/matching/explain`, { method: 'POST' });
    assert.equal(unsigned.status, 401);
    const spelt = await fetch(`${matching}/ADMIN/matching/explain`, { method: 'POST' });
    assert.equal(spelt.status, 404);
  });
});
