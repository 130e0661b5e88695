import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  access,
  constants,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface Bin {
  name: string;
  packageName: string;
  packageDir: string;
  target: string;
}

/** Every command a workspace package declares in its package.json `bin`. */
async function workspaceBins(): Promise<Bin[]> {
  const bins: Bin[] = [];
  for (const parent of ['packages', 'services']) {
    for (const entry of await readdir(path.join(repoRoot, parent))) {
      const packageDir = path.join(repoRoot, parent, entry);
      const manifest = await readFile(path.join(packageDir, 'package.json'), 'utf8').catch(
        () => undefined,
      );
      if (manifest === undefined) continue;
      const { name, bin } = JSON.parse(manifest) as { name: string; bin?: Record<string, string> };
      for (const [command, target] of Object.entries(bin ?? {}))
        bins.push({ name: command, packageName: name, packageDir, target });
    }
  }
  return bins;
}

// Issue 43, item 3: pnpm links a bin when it installs, before the first build; one pointing into
// dist/ is not linked at all on a fresh clone ("Failed to create bin"), and `pnpm exec` then
// answers "Command not found" even after the build.
describe("the workspace's commands on a fresh clone", () => {
  it('each bin is a committed file outside dist/, a node script', async () => {
    const bins = await workspaceBins();
    assert.ok(bins.length >= 3, 'vop-import, vop-batch and vop-conformance at least');
    for (const bin of bins) {
      assert.ok(!bin.target.replace(/^\.\//, '').startsWith('dist/'), `${bin.name}: ${bin.target}`);
      const file = path.join(bin.packageDir, bin.target);
      await access(file, constants.X_OK);
      assert.match(await readFile(file, 'utf8'), /^#!\/usr\/bin\/env node\n/, bin.name);
    }
  });

  it('each bin, before the build, says to build instead of failing on a missing module', async () => {
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'vop-bins-'));
    try {
      for (const bin of await workspaceBins()) {
        const copy = path.join(scratch, bin.name, bin.target);
        await mkdir(path.dirname(copy), { recursive: true });
        await copyFile(path.join(bin.packageDir, bin.target), copy);
        const run = spawnSync(process.execPath, [copy, '--help'], { encoding: 'utf8' });
        assert.equal(run.status, 2, `${bin.name}: ${run.stderr}`);
        assert.match(run.stderr, new RegExp(`^${bin.name} is not built yet: run \`pnpm build\``));
      }
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });

  it('each bin runs from the root with `pnpm exec`, as the documents print it', async () => {
    const root = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    for (const bin of await workspaceBins()) {
      assert.equal(root.devDependencies[bin.packageName], 'workspace:*', bin.name);
      const run = spawnSync(path.join(repoRoot, 'node_modules/.bin', bin.name), ['--help'], {
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, `${bin.name}: ${run.stderr}`);
    }
  });
});
