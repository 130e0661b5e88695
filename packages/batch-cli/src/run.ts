import { createWriteStream } from 'node:fs';
import { acceptFor, batchClient, type BatchClientOptions, type BatchStatus } from './client.js';

export interface RunBatchOptions extends BatchClientOptions {
  /** The file to upload: .csv (id,iban,name), .ndjson, or .json ({batchId, verifications}). */
  file: string;
  batchId: string;
  /** Where the results go; its extension picks CSV, NDJSON or JSON. */
  out: string;
  pollIntervalMs?: number;
  onProgress?: (status: BatchStatus) => void;
}

/** Uploads, follows the batch until its results are ready, and writes them: the whole client run. */
export async function runBatch(options: RunBatchOptions): Promise<BatchStatus> {
  const client = batchClient(options);
  try {
    const { batchId } = await client.upload(options.file, options.batchId);
    let status = await client.status(batchId);
    options.onProgress?.(status);
    while (!status.resultsReady && status.status !== 'FAILED') {
      await new Promise((resolve) => setTimeout(resolve, options.pollIntervalMs ?? 250));
      status = await client.status(batchId);
      options.onProgress?.(status);
    }
    await client.downloadResults(batchId, acceptFor(options.out), createWriteStream(options.out));
    return status;
  } finally {
    client.close();
  }
}
