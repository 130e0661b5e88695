#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SingleBar, Presets } from 'cli-progress';
import { BatchRequestError } from './client.js';
import { runBatch } from './run.js';

const usage = `vop-batch: upload a batch, show its progress, write its results

  vop-batch --url https://localhost:8443 --ca ca.pem --cert client.pem --key client-key.pem \\
            [--api-key vop_test_…] [--batch-id payroll-03] [--out results.csv] entries.csv

  entries: .csv (header id,iban,name), .ndjson (one {id,iban,name} a line) or .json ({batchId, verifications})
  --out:   .csv, .ndjson or .json (default: <entries>-results.csv)`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string', default: 'https://localhost:8443' },
    ca: { type: 'string' },
    cert: { type: 'string' },
    key: { type: 'string' },
    'api-key': { type: 'string' },
    'batch-id': { type: 'string' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
const file = positionals[0];
if (values.help || file === undefined) {
  process.stdout.write(`${usage}\n`);
  process.exit(file === undefined && !values.help ? 2 : 0);
}

const pem = (name: string | undefined) => (name ? readFile(name, 'utf8') : undefined);
const [caPem, certPem, keyPem] = await Promise.all([
  pem(values.ca),
  pem(values.cert),
  pem(values.key),
]);
const base = path.basename(file, path.extname(file));
const out = values.out ?? path.join(path.dirname(file), `${base}-results.csv`);
const bar = new SingleBar(
  { format: 'batch {batchId} [{bar}] {value}/{total} {status}', hideCursor: true },
  Presets.shades_classic,
);
let started = false;
try {
  const status = await runBatch({
    url: values.url,
    ...(caPem !== undefined && { caPem }),
    ...(certPem !== undefined && { certPem }),
    ...(keyPem !== undefined && { keyPem }),
    ...(values['api-key'] !== undefined && { apiKey: values['api-key'] }),
    file,
    batchId: values['batch-id'] ?? `${base}-${Date.now()}`,
    out,
    onProgress: ({ batchId, status, progress }) => {
      if (!started) bar.start(progress.total, progress.processed, { batchId, status });
      started = true;
      bar.update(progress.processed, { batchId, status });
    },
  });
  bar.stop();
  process.stdout.write(
    `${status.status}: ${status.progress.successful} answered, ${status.progress.failed} failed; results in ${out}\n`,
  );
} catch (error) {
  bar.stop();
  const message = error instanceof BatchRequestError ? error.message : String(error);
  process.stderr.write(`vop-batch: ${message}\n`);
  process.exit(1);
}
