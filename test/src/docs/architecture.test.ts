import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ROUTE_FAMILIES } from '@vop/http';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The body rows of the first Markdown table after a heading, as cells without backticks. */
function tableAfter(markdown: string, heading: string): string[][] {
  const lines = markdown.slice(markdown.indexOf(heading)).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  return lines.slice(start + 2, end).map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim().replaceAll('`', '')),
  );
}

describe('docs/architecture.md', () => {
  it('shows the route-family table as packages/http/src/route-families.ts defines it', async () => {
    const markdown = await readFile(path.join(repoRoot, 'docs/architecture.md'), 'utf8');
    const expected = ROUTE_FAMILIES.map((family) => [
      family.name,
      family.paths.join(', '),
      family.owner,
      family.errorFormat,
      family.access,
      family.apiKeyScope ?? 'no',
      family.rateBudget,
      `${family.deadlineMs / 1000} s`,
    ]);
    assert.deepEqual(tableAfter(markdown, '## Route families'), expected);
  });

  it('names only files that exist', async () => {
    const markdown = await readFile(path.join(repoRoot, 'docs/architecture.md'), 'utf8');
    const files = [...markdown.matchAll(/`((?:services|packages|test)\/[\w./-]+\.ts)`/g)].map(
      (match) => match[1] as string,
    );
    assert.ok(files.length > 10);
    const missing: string[] = [];
    for (const file of new Set(files))
      await readFile(path.join(repoRoot, file)).catch(() => missing.push(file));
    assert.deepEqual(missing, []);
  });
});
