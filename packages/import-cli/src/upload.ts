import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AccountImportResponse, FlatError, type z } from '@vop/contracts';

type FlatErrorBody = z.infer<typeof FlatError>;

/** Where to upload, and the admin certificate (or a certificate the gateway takes for account records). */
export interface ImportTarget {
  url: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}

export type ImportFileFormat = 'ndjson' | 'csv';

export const CONTENT_TYPES: Record<ImportFileFormat, string> = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv',
};

/** The format named, else the one the file's extension says (.csv is CSV, anything else NDJSON). */
export function formatOf(file: string, named?: string): ImportFileFormat {
  if (named === 'csv' || named === 'ndjson') return named;
  if (named !== undefined) throw new Error(`unknown format "${named}" (csv or ndjson)`);
  return file.toLowerCase().endsWith('.csv') ? 'csv' : 'ndjson';
}

export type UploadResult =
  | { ok: true; summary: AccountImportResponse }
  | { ok: false; status: number; error: FlatErrorBody | undefined; location: string | undefined };

export interface UploadOptions {
  target: ImportTarget;
  file: string;
  format: ImportFileFormat;
  /** Named by the client, so it can read the import's status while the upload runs. */
  importId: string;
  /** Called as the file is read (the request's backpressure paces reading). */
  onBytesSent?: (sent: number, total: number) => void;
}

const agents = new WeakMap<ImportTarget, https.Agent>();
function agentFor(target: ImportTarget): https.Agent {
  let agent = agents.get(target);
  if (agent === undefined) {
    agent = new https.Agent({
      keepAlive: true,
      ca: target.caPem,
      cert: target.certPem,
      key: target.keyPem,
    });
    agents.set(target, agent);
  }
  return agent;
}

function readAll(res: import('node:http').IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Streams the file to POST /admin/accounts/import and reads the summary (or the error). */
export async function uploadAccountFile(options: UploadOptions): Promise<UploadResult> {
  const total = (await stat(options.file)).size;
  let sent = 0;
  const source = createReadStream(options.file, { highWaterMark: 256 * 1024 });
  source.on('data', (chunk) => {
    sent += chunk.length;
    options.onBytesSent?.(sent, total);
  });
  return uploadAccountStream({ ...options, body: source, contentLength: total });
}

/** Streams any readable (a file, a generator) to POST /admin/accounts/import; the server paces it. */
export function uploadAccountStream(options: {
  target: ImportTarget;
  body: Readable;
  format: ImportFileFormat;
  importId: string;
  contentLength?: number;
}): Promise<UploadResult> {
  const { target, format } = options;
  const url = new URL(`/admin/accounts/import?importId=${options.importId}`, target.url);
  return new Promise<UploadResult>((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: 'POST',
        agent: agentFor(target),
        headers: {
          'content-type': CONTENT_TYPES[format],
          ...(options.contentLength !== undefined && {
            'content-length': String(options.contentLength),
          }),
        },
      },
      (res) => {
        readAll(res).then((text) => {
          const body = parseJson(text);
          const status = res.statusCode ?? 0;
          if (status === 201)
            return resolve({ ok: true, summary: AccountImportResponse.parse(body) });
          const error = FlatError.safeParse(body);
          const location = res.headers.location;
          resolve({ ok: false, status, error: error.success ? error.data : undefined, location });
        }, reject);
      },
    );
    req.on('error', reject);
    pipeline(options.body, req).catch(reject);
  });
}

/** GET the import's status; undefined while the server has not created it yet. */
export async function importStatus(
  target: ImportTarget,
  importId: string,
): Promise<AccountImportResponse | undefined> {
  const url = new URL(`/admin/accounts/import/${importId}`, target.url);
  return new Promise((resolve, reject) => {
    https
      .get(url, { agent: agentFor(target) }, (res) => {
        readAll(res).then((text) => {
          if (res.statusCode !== 200) return resolve(undefined);
          resolve(AccountImportResponse.parse(parseJson(text)));
        }, reject);
      })
      .on('error', reject);
  });
}

/** Frees the keep-alive connections of a target. */
export function closeTarget(target: ImportTarget): void {
  agents.get(target)?.destroy();
  agents.delete(target);
}
