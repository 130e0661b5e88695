import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@vop/testing';
import { runEmbedded, schemeRequest, type RunningEmbedded } from './fixtures.js';

interface Check {
  iban: string;
  name: string;
  outcome: string;
  why: string;
}

/** Issue 10, item 3: the reference set loads with the outcomes it documents, and a reset removes it. */
describe('embedded: POST /admin/import-test-data and /admin/reset-test-data', () => {
  let running: RunningEmbedded;
  before(async () => {
    running = await runEmbedded();
  });
  after(async () => running?.stop());

  it('loads the reference accounts once, each documented check answering its outcome', async () => {
    const imported = await running.admin.post('/admin/import-test-data', {});
    assert.equal(imported.status, 200, imported.text);
    assert.equal(imported.body.dataSet, 'reference-accounts');
    assert.equal(imported.body.imported, 6);
    const checks = imported.body.checks as Check[];
    assert.ok(checks.length >= 10);
    const again = await running.admin.post('/admin/import-test-data', {});
    assert.deepEqual([again.body.imported, again.body.skipped], [0, 6]);

    const outcome = async (check: Check) =>
      (await running.client.post('/vop/verify', schemeRequest(check.name, check.iban))).body
        .partyNameMatch;
    // The accounts reach the decider's copy of the projection asynchronously, so the checks are asked
    // until all answer as documented; a wrong outcome that stays fails with the list of them. (Waiting
    // for the first check and a NOAP one, as before, let a check run before its account arrived.)
    let wrong: string[] = [];
    await eventually(
      async () => {
        wrong = [];
        for (const check of checks) {
          const got = await outcome(check);
          if (got !== check.outcome) wrong.push(`${check.why}: ${got} ≠ ${check.outcome}`);
        }
        return wrong.length === 0 ? true : undefined;
      },
      { what: 'every documented check answering its outcome' },
    ).catch(() => undefined);
    assert.deepEqual(wrong, []);
  });

  it('removes every account record on reset, audited, and the reference IBANs then answer NOAP', async () => {
    const reset = await running.admin.post('/admin/reset-test-data', {});
    assert.equal(reset.status, 200, reset.text);
    assert.equal(reset.body.accountsRemoved, 6);
    const denied = await running.client.post('/admin/reset-test-data', {});
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error, 'ACCESS_DENIED');
    await eventually(
      async () => {
        const response = await running.client.post(
          '/vop/verify',
          schemeRequest('Erika Mustermann', 'DE87500105170009900001'),
        );
        return response.body.partyNameMatch === 'NOAP' ? true : undefined;
      },
      { what: 'the deletions reach matching' },
    );
    await eventually(
      async () => {
        const audit = await running.admin.get('/admin/audit?limit=100');
        const operations = audit.body.entries.map(
          (entry: { operation: string }) => entry.operation,
        );
        return operations.includes('POST /admin/reset-test-data') &&
          operations.includes('POST /admin/import-test-data')
          ? true
          : undefined;
      },
      { what: 'audit entries' },
    );
  });

  it('does not exist in a live deployment', async () => {
    const live = await runEmbedded({ env: { VOP_ENVIRONMENT: 'live' } });
    try {
      for (const path of ['/admin/reset-test-data', '/admin/import-test-data']) {
        const response = await live.admin.post(path, {});
        assert.equal(response.status, 404, `${path}: ${response.text}`);
      }
    } finally {
      await live.stop();
    }
  });
});
