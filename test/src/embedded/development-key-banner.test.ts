import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const main = path.join(repoRoot, 'services/embedded/dist/main.js');

/** Starts the embedded main as `pnpm start` does, returns what it printed up to its first blank line after the banner, and stops it. */
async function startBanner(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, VOP_PORT: '0', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  try {
    return await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        // The banner ends with the webhook example's receiver.
        if (stdout.includes('/webhooks')) resolve(stdout);
      });
      child.on('error', reject);
      child.on('exit', (code) =>
        reject(new Error(`the service ended (${code}) before its banner: ${stderr}`)),
      );
    });
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

describe('the embedded start banner names the development test key and its scopes', () => {
  it('in the development profile: where the key is and the scopes it has', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-banner-'));
    try {
      const banner = await startBanner({
        VOP_DATA_DIR: dataDir,
        VOP_PROFILE: 'development',
        VOP_ENVIRONMENT: 'test',
      });
      const keyFile = path.join(dataDir, 'pki', 'test-api-key.txt');
      const line = banner.split('\n').find((text) => text.includes(keyFile));
      assert.ok(line, banner);
      assert.match(line, /scopes verify, accounts/);
      assert.match(await readFile(keyFile, 'utf8'), /^vop_test_/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('in a live deployment no test key is written, so none is named', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-banner-'));
    try {
      const banner = await startBanner({
        VOP_DATA_DIR: dataDir,
        VOP_PROFILE: 'development',
        VOP_ENVIRONMENT: 'live',
      });
      assert.doesNotMatch(banner, /test API key/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
