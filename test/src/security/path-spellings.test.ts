import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@vop/testing';
import { runEmbedded, participantTls, type RunningEmbedded } from '../embedded/fixtures.js';
import {
  agentFor,
  probeCallers,
  probeSpellings,
  routesAtRoot,
  sendRaw,
  type Caller,
  type ProbeTarget,
} from './path-spellings.js';

/**
 * Issue 39: a participant became admin by writing `/ADMIN/audit`. Every mounted route of the embedded
 * app, every spelling (path-spellings.ts), every caller but the admin.
 */
describe('no spelling of a path reaches a handler under another family (embedded)', () => {
  let embedded: RunningEmbedded;
  let target: ProbeTarget;
  let callers: Caller[];

  before(async () => {
    embedded = await runEmbedded();
    const participant = await participantTls(embedded.service.pki);
    target = { baseUrl: embedded.service.url, caPem: participant.caPem };
    callers = await probeCallers(participant, embedded.admin);
  });
  after(async () => {
    await embedded.stop();
  });

  it('walks every mounted route: management, account records and the scheme among them', () => {
    const paths = routesAtRoot(embedded.service.routes).map(
      ({ method, path }) => `${method} ${path}`,
    );
    for (const expected of [
      'GET /admin/audit',
      'POST /admin/api-keys',
      'PUT /admin/scheme-directory',
      'POST /accounts',
      'PUT /api/accounts/probe1',
      'POST /vop/verify',
      'GET /health/detailed',
      'POST /admin/matching/explain',
      'GET /admin/stats',
      'POST /api/v1/batch',
      'GET /webhooks',
    ])
      assert.ok(paths.includes(expected), expected);
  });

  it('reaches no handler by any other spelling, and refuses each base form as the path itself', async () => {
    const summary = await probeSpellings(target, callers, routesAtRoot(embedded.service.routes));
    assert.ok(summary.refusedAsNotTheRoute > 1000, JSON.stringify(summary));
    assert.ok(summary.baseFormsCompared > 100, JSON.stringify(summary));
  });

  it("answers the issue's own attacks 404 in the flat format, before authentication", async () => {
    for (const caller of callers) {
      const agent = agentFor(target, caller);
      try {
        for (const [method, path] of [
          ['GET', '/ADMIN/audit'],
          ['POST', '/ADMIN/api-keys'],
          ['PUT', '/API/accounts/probe1'],
          ['PUT', '/V1/ADMIN/scheme-directory'],
          ['GET', '/HEALTH/detailed'],
          ['DELETE', '/Admin/api-keys/key_probe'],
          ['POST', '/ADMIN/reset-test-data'],
          ['POST', '/admin/accounts/probe1/erasure/'],
          ['GET', '/admin/%61udit'],
          ['GET', '/nowhere'],
        ] as const) {
          const answer = await sendRaw(target, caller, method, path, agent);
          assert.equal(answer.status, 404, `${caller.name}: ${method} ${path}`);
          assert.deepEqual(answer.body, { error: 'NOT_FOUND', message: 'No such endpoint' });
        }
      } finally {
        agent.destroy();
      }
    }
  });

  it('audits every request that reaches a management handler, under each base form', async () => {
    const { caPem, certPem, keyPem } = {
      caPem: await readFile(embedded.service.pki.caPath, 'utf8'),
      certPem: await readFile(embedded.service.pki.adminCertPath, 'utf8'),
      keyPem: await readFile(embedded.service.pki.adminKeyPath, 'utf8'),
    };
    const admin: Caller = { name: 'the admin', cert: { certPem, keyPem } };
    const agent = agentFor({ ...target, caPem }, admin);
    try {
      const marker = `probe-${Date.now()}`;
      for (const path of [
        `/admin/api-keys?marker=${marker}`,
        `/v1/admin/api-keys?marker=${marker}`,
        `/vop/api/v1/admin/api-keys?marker=${marker}`,
      ])
        assert.equal((await sendRaw(target, admin, 'GET', path, agent)).status, 200, path);
      // Spellings that reach no handler are refused as no route at all, for the admin too.
      for (const path of ['/ADMIN/api-keys', '/admin/api-keys/', '/admin/%61pi-keys'])
        assert.equal((await sendRaw(target, admin, 'GET', path, agent)).status, 404, path);
      // Audit entries are written once each answer is sent: wait for them.
      await eventually(
        async () => {
          const audit = await sendRaw(target, admin, 'GET', '/admin/audit?limit=100', agent);
          assert.equal(audit.status, 200, audit.text);
          const entries = (audit.body as { entries: { operation: string }[] }).entries;
          const reads = entries.filter((entry) => entry.operation === 'GET /admin/api-keys');
          return reads.length >= 3 ? reads : undefined;
        },
        // Slowly: every poll draws on the admin's rate budget.
        { what: 'three audited reads of /admin/api-keys', intervalMs: 500 },
      );
    } finally {
      agent.destroy();
    }
  });
});
