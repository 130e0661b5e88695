import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { eventually, httpsClient } from '@vop/testing';
import { startWebhookReceiver } from '../webhook-receiver.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const main = path.join(repoRoot, 'services/embedded/dist/main.js');

interface Started {
  banner: string;
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** The embedded main as `pnpm start` runs it, up to the end of its banner (the webhook example). */
async function start(env: Record<string, string>): Promise<Started> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-start-'));
  const child: ChildProcess = spawn(process.execPath, [main], {
    env: { ...process.env, VOP_PORT: '0', LOG_LEVEL: 'silent', VOP_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  try {
    const banner = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        if (/\/webhooks\n/.test(stdout)) resolve(stdout);
      });
      child.on('exit', (code) => reject(new Error(`ended (${code}) before its banner: ${stderr}`)));
    });
    const url = /listening on (https:\/\/\S+)/.exec(banner)?.[1];
    assert.ok(url, banner);
    return { banner, url, dataDir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The participant's client from the development PKI the start wrote. */
async function participant(started: Started) {
  const read = (file: string) => readFile(path.join(started.dataDir, 'pki', file), 'utf8');
  return httpsClient({
    baseUrl: started.url,
    caPem: await read('ca.pem'),
    certPem: await read('client.pem'),
    keyPem: await read('client-key.pem'),
  });
}

// Issue 43, item 3: the commands the start prints work as printed, and a live start offers
// nothing it answers 404.
describe('the embedded start banner', () => {
  const stops: Array<() => Promise<void>> = [];
  after(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it("development profile: the banner's webhook registration, for a receiver on this machine, is accepted and delivered to", async () => {
    const started = await start({ VOP_PROFILE: 'development', VOP_ENVIRONMENT: 'test' });
    stops.push(started.stop);
    const printed = /-d '(\{"url":"http:\/\/127\.0\.0\.1:9000\/hooks"[^']*)' \S+\/webhooks\n/.exec(
      started.banner,
    );
    assert.ok(printed?.[1], started.banner);
    const receiver = await startWebhookReceiver();
    stops.push(() => receiver.close());
    const client = await participant(started);
    stops.push(async () => client.close());
    // The banner's body, at the port this test's receiver took instead of 9000.
    const body = JSON.parse(printed[1]) as { url: string };
    const created = await client.post('/webhooks', { ...body, url: receiver.url('/hooks') });
    assert.equal(created.status, 201, created.text);
    const receipt = await client.post('/verify', {
      name: 'Erika Mustermann',
      iban: 'DE89370400440532013000',
    });
    assert.equal(receipt.status, 201, receipt.text);
    const delivered = await eventually(async () => receiver.received[0], {
      timeoutMs: 30_000,
      what: 'a delivery to the receiver on this machine',
    });
    assert.match(delivered.body, /verification\.success/);
  });

  it('a live start names no /test page and documents no /test operation, which it answers 404', async () => {
    const started = await start({ VOP_PROFILE: 'development', VOP_ENVIRONMENT: 'live' });
    stops.push(started.stop);
    assert.match(started.banner, /pages: .*\/admin\/stats/);
    assert.doesNotMatch(started.banner, /\/test\b/);
    assert.doesNotMatch(started.banner, /http:\/\/127\.0\.0\.1/);
    const client = await participant(started);
    stops.push(async () => client.close());
    const document = await client.get('/openapi.json');
    assert.equal(document.status, 200);
    const paths = Object.keys(document.body.paths);
    assert.ok(paths.includes('/vop/verify'));
    assert.deepEqual(
      paths.filter((each) => each === '/test' || each.startsWith('/test/')),
      [],
    );
    assert.equal(document.body.paths['/api/accounts']?.post, undefined);
    assert.equal((await client.get('/test')).status, 404);
    assert.equal((await client.get('/test/performance/metrics')).status, 404);
  });
});
