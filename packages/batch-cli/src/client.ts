import { createReadStream } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { batchResultCsvRecord, batchResultsCsvHeader, type BatchResult } from '@vop/contracts';

export interface BatchClientOptions {
  /** The gateway, e.g. https://localhost:8443. */
  url: string;
  /** PEM texts: the CA to trust, and the participant's certificate and key (mutual TLS). */
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  /** Instead of a certificate: `Authorization: Bearer <key>` (beside one, the gateway does not read it). */
  apiKey?: string;
}

export interface BatchStatus {
  batchId: string;
  status: 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';
  progress: { total: number; processed: number; successful: number; failed: number };
  resultsReady: boolean;
}

export class BatchRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}: ${body}`);
    this.name = 'BatchRequestError';
  }
}

/** What a file's name says it holds: CSV (id,iban,name), NDJSON, or a JSON submission. */
export function contentTypeOf(file: string): string {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.csv') return 'text/csv';
  if (extension === '.ndjson' || extension === '.jsonl') return 'application/x-ndjson';
  return 'application/json';
}

/** Results are written in the format the output file's name asks for. */
export function acceptFor(file: string): string {
  const type = contentTypeOf(file);
  return type === 'text/csv' || type === 'application/x-ndjson' ? type : 'application/json';
}

/** NDJSON results as CSV lines, header first. */
async function* csvOf(ndjson: NodeJS.ReadableStream): AsyncGenerator<string> {
  yield batchResultsCsvHeader();
  for await (const line of createInterface({ input: ndjson, crlfDelay: Infinity }))
    if (line.trim() !== '') yield batchResultCsvRecord(JSON.parse(line) as BatchResult);
}

/** The batch API over HTTPS: uploads stream from the file, results stream into the output. */
export function batchClient(options: BatchClientOptions) {
  const agent = new https.Agent({
    keepAlive: true,
    ...(options.caPem !== undefined && { ca: options.caPem }),
    ...(options.certPem !== undefined && { cert: options.certPem }),
    ...(options.keyPem !== undefined && { key: options.keyPem }),
  });
  const auth = options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` };

  function send(
    method: string,
    target: string,
    headers: Record<string, string>,
    body?: NodeJS.ReadableStream,
  ): Promise<import('node:http').IncomingMessage> {
    return new Promise((resolve, reject) => {
      const request = https.request(
        new URL(target, options.url),
        { method, agent, headers: { ...auth, ...headers } },
        resolve,
      );
      request.on('error', reject);
      if (body) body.on('error', reject).pipe(request);
      else request.end();
    });
  }

  async function text(response: import('node:http').IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  return {
    /** Uploads a file (CSV and NDJSON name the batch in the query; a JSON file names its own). */
    async upload(file: string, batchId: string): Promise<{ batchId: string; status: string }> {
      const type = contentTypeOf(file);
      const query = type === 'application/json' ? '' : `?batchId=${encodeURIComponent(batchId)}`;
      const response = await send(
        'POST',
        `/api/v1/batch${query}`,
        { 'content-type': type },
        createReadStream(file),
      );
      const body = await text(response);
      if (response.statusCode !== 202) throw new BatchRequestError(response.statusCode ?? 0, body);
      return JSON.parse(body) as { batchId: string; status: string };
    },
    async status(batchId: string): Promise<BatchStatus> {
      const response = await send('GET', `/api/v1/batch/${encodeURIComponent(batchId)}`, {});
      const body = await text(response);
      if (response.statusCode !== 200) throw new BatchRequestError(response.statusCode ?? 0, body);
      return JSON.parse(body) as BatchStatus;
    },
    /**
     * Streams every result into `output`: NDJSON as served; CSV written here from the NDJSON, through
     * the service's own CSV writer (cells that would start a formula neutralised, whatever the server);
     * JSON page by page into one array.
     */
    async downloadResults(batchId: string, accept: string, output: Writable): Promise<void> {
      const base = `/api/v1/batch/${encodeURIComponent(batchId)}/results`;
      if (accept !== 'application/json') {
        const response = await send('GET', base, { accept: 'application/x-ndjson' });
        if (response.statusCode !== 200)
          throw new BatchRequestError(response.statusCode ?? 0, await text(response));
        if (accept === 'text/csv') await pipeline(csvOf(response), output);
        else await pipeline(response, output);
        return;
      }
      output.write(`{"batchId":${JSON.stringify(batchId)},"results":[`);
      let first = true;
      for (let cursor: string | undefined; ;) {
        const response = await send('GET', cursor ? `${base}?cursor=${cursor}` : base, { accept });
        const body = await text(response);
        if (response.statusCode !== 200)
          throw new BatchRequestError(response.statusCode ?? 0, body);
        const page = JSON.parse(body) as { results: unknown[]; nextCursor?: string };
        for (const result of page.results) {
          output.write(`${first ? '' : ','}\n${JSON.stringify(result)}`);
          first = false;
        }
        cursor = page.nextCursor;
        if (cursor === undefined) break;
      }
      await new Promise<void>((resolve, reject) =>
        output.end('\n]}\n', () => resolve()).on('error', reject),
      );
    },
    close: () => agent.destroy(),
  };
}

export type BatchClient = ReturnType<typeof batchClient>;
