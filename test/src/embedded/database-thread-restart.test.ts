import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { eventually, germanIban } from '@vop/testing';
import { runEmbedded, schemeRequest } from './fixtures.js';

describe('the embedded default when its database thread ends', () => {
  it('opens the data folder on a new thread, says ready again, and answers with what was stored before and after', async () => {
    const threads: Worker[] = [];
    const running = await runEmbedded({
      inMemory: false,
      onPgliteThread: (thread) => threads.push(thread),
    });
    const { client, admin } = running;
    try {
      const before = germanIban(9101);
      assert.equal(
        (await admin.post('/accounts', { iban: before, name: 'Thread Before' })).status,
        201,
      );
      const first = await client.post('/vop/verify', schemeRequest('Thread Before', before));
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.partyNameMatch, 'MTCH');

      await threads[0]!.terminate();

      await eventually(
        async () =>
          ((await client.get('/readyz')).status === 200 && threads.length === 2) || undefined,
        { timeoutMs: 60_000, what: 'ready on a new database thread' },
      );
      // Stored before the thread ended, and written, projected and matched after.
      const again = await client.post('/vop/verify', schemeRequest('Thread Before', before));
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.partyNameMatch, 'MTCH');
      const after = germanIban(9102);
      assert.equal(
        (await admin.post('/accounts', { iban: after, name: 'Thread After' })).status,
        201,
      );
      await eventually(
        async () => {
          const answer = await client.post('/vop/verify', schemeRequest('Thread After', after));
          return answer.body.partyNameMatch === 'MTCH' || undefined;
        },
        { timeoutMs: 60_000, what: 'the account opened after the restart matched' },
      );
    } finally {
      await running.stop();
    }
  });
});
