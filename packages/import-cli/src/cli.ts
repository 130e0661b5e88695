#!/usr/bin/env node
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { renderSummary } from './summary.js';
import {
  closeTarget,
  formatOf,
  importStatus,
  uploadAccountFile,
  type ImportTarget,
} from './upload.js';

const USAGE = `Usage: vop-import <file> [options]

Uploads account records (NDJSON, or CSV with the columns iban,name,holderType,alternateNames,
identifiers,status) to POST /admin/accounts/import over mutual TLS, with a progress bar.

  --url <url>          the gateway (default https://localhost:8443)
  --data-dir <dir>     a development data folder: uses <dir>/pki/ca.pem, admin.pem, admin-key.pem
  --ca <file>          trust anchors of the gateway's certificate
  --cert <file>        the client certificate (the admin certificate)
  --key <file>         its private key
  --format <fmt>       csv or ndjson (default: by the file's extension)
  --import-id <uuid>   name the import (default: a new one)
  --no-progress        no progress bar

Exit status: 0 all rows applied, 2 some rows refused (listed), 1 the import failed.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string', default: 'https://localhost:8443' },
    'data-dir': { type: 'string' },
    ca: { type: 'string' },
    cert: { type: 'string' },
    key: { type: 'string' },
    format: { type: 'string' },
    'import-id': { type: 'string' },
    'no-progress': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const file = positionals[0];
if (values.help || file === undefined) {
  console.log(USAGE);
  process.exit(values.help ? 0 : 1);
}

async function target(): Promise<ImportTarget> {
  const pki = values['data-dir'] === undefined ? undefined : path.join(values['data-dir'], 'pki');
  const pick = (explicit: string | undefined, devFile: string, what: string): string => {
    const chosen = explicit ?? (pki && path.join(pki, devFile));
    if (chosen === undefined) throw new Error(`--${what} (or --data-dir) is required`);
    return chosen;
  };
  const [caPem, certPem, keyPem] = await Promise.all([
    readFile(pick(values.ca, 'ca.pem', 'ca'), 'utf8'),
    readFile(pick(values.cert, 'admin.pem', 'cert'), 'utf8'),
    readFile(pick(values.key, 'admin-key.pem', 'key'), 'utf8'),
  ]);
  return { url: values.url as string, caPem, certPem, keyPem };
}

async function main(uploaded: string): Promise<number> {
  const to = await target();
  const importId = values['import-id'] ?? randomUUID();
  const started = Date.now();
  const bar = values['no-progress']
    ? undefined
    : new cliProgress.SingleBar(
        {
          format: '{bar} {percentage}% | {sentMiB}/{totalMiB} MiB | rows {rows} | failed {failed}',
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      );
  const mib = (bytes: number) => (bytes / 1_048_576).toFixed(1);
  let rows = 0;
  let failed = 0;
  bar?.start(1, 0, { sentMiB: '0.0', totalMiB: '?', rows, failed });
  const poll = setInterval(() => {
    importStatus(to, importId).then(
      (status) => {
        if (status === undefined) return;
        rows = status.rows.read;
        failed = status.rows.failed;
        bar?.update({ rows, failed });
      },
      () => undefined,
    );
  }, 1000);
  try {
    const result = await uploadAccountFile({
      target: to,
      file: uploaded,
      format: formatOf(uploaded, values.format),
      importId,
      onBytesSent: (sent, total) => {
        bar?.setTotal(total);
        bar?.update(sent, { sentMiB: mib(sent), totalMiB: mib(total), rows, failed });
      },
    });
    clearInterval(poll);
    bar?.stop();
    const seconds = (Date.now() - started) / 1000;
    if (result.ok) {
      console.log(renderSummary(result.summary, seconds));
      return result.summary.rows.failed > 0 ? 2 : 0;
    }
    console.error(
      `import refused (HTTP ${result.status}): ${result.error?.error ?? ''} ${result.error?.message ?? ''}`,
    );
    if (result.location !== undefined) {
      const status = await importStatus(to, importId);
      if (status !== undefined) console.error(renderSummary(status, seconds));
    }
    return 1;
  } finally {
    clearInterval(poll);
    bar?.stop();
    closeTarget(to);
  }
}

main(file).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`vop-import: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
