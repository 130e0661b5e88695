import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ensureDevPki } from '@vop/pki';
import {
  eventually,
  freePort,
  germanIban,
  httpsClient,
  startServiceProcess,
  type HttpsClient,
  type ServiceProcess,
} from '@vop/testing';
import { adminTls, participantTls, schemeRequest } from './fixtures.js';

const embeddedMain = fileURLToPath(
  new URL('../../../services/embedded/dist/main.js', import.meta.url),
);

/** Waits until /readyz says ready (200); the process must stay alive meanwhile. */
async function ready(client: HttpsClient, process: ServiceProcess): Promise<void> {
  await eventually(
    async () => {
      if (process.child.exitCode !== null) throw new Error(`exited:\n${process.output()}`);
      const probe = await client.get('/readyz').catch(() => undefined);
      return probe?.status === 200 ? true : undefined;
    },
    // Generous: on a shared 2-core machine a cold start can take a minute; not a timed assertion.
    { timeoutMs: 180_000, what: 'embedded ready' },
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}; process output:\n${process.output()}`);
  });
}

describe('the embedded default after kill -9', () => {
  it('answers single checks within the deadline as soon as /readyz says ready', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-crash-'));
    const port = await freePort();
    const env = { VOP_DATA_DIR: dataDir, VOP_PORT: String(port), LOG_LEVEL: 'warn' };
    const pki = await ensureDevPki(dataDir);
    const baseUrl = `https://127.0.0.1:${port}`;
    const client = httpsClient({ baseUrl, ...(await participantTls(pki)) });
    const admin = httpsClient({ baseUrl, ...(await adminTls(pki)) });
    let running = startServiceProcess('embedded', embeddedMain, env);
    try {
      await ready(client, running);
      const iban = germanIban(9001);
      assert.equal((await admin.post('/accounts', { iban, name: 'Crash Survivor' })).status, 201);
      const before = await client.post('/vop/verify', schemeRequest('Crash Survivor', iban));
      assert.equal(before.status, 200);

      // Twice: the second restart finds the lease of a process that was itself a restart.
      for (let round = 0; round < 2; round += 1) {
        await running.kill();
        running = startServiceProcess('embedded', embeddedMain, env);
        await ready(client, running);
        const after = await client.post('/vop/verify', schemeRequest('Crash Survivor', iban));
        assert.equal(after.status, 200, `round ${round}: ${JSON.stringify(after.body)}`);
        assert.equal(after.body.partyNameMatch, 'MTCH');
      }
    } finally {
      client.close();
      admin.close();
      await running.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
