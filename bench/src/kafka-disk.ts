import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Bytes on disk of a namespace's topics in a local broker's log directory (one folder per partition):
 * blocks allocated, since the broker's index files are sparse files of a preallocated length.
 */
export async function kafkaBytesUnder(logDir: string, namespace: string): Promise<number> {
  let bytes = 0;
  for (const partition of await readdir(logDir)) {
    if (!partition.startsWith(namespace)) continue;
    const folder = path.join(logDir, partition);
    for (const file of await readdir(folder).catch(() => [])) {
      bytes += ((await stat(path.join(folder, file)).catch(() => undefined))?.blocks ?? 0) * 512;
    }
  }
  return bytes;
}
