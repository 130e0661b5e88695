import { httpsClient } from '@vop/testing';
import type { ClientTls } from './client-tls.js';

/** The embedded store's vacuums, analyses and checkpoints, and the seconds they held its one backend. */
export interface StoreUpkeepFigures {
  vacuums: number;
  analyses: number;
  checkpoints: number;
  seconds: number;
}

/** What `store_upkeep_total` and `store_upkeep_duration_seconds` say on a /metrics page. */
function parseStoreUpkeep(metrics: string): StoreUpkeepFigures {
  const sum = (pattern: RegExp): number =>
    [...metrics.matchAll(pattern)].reduce((total, match) => total + Number(match[1]), 0);
  return {
    vacuums: sum(/^store_upkeep_total\{[^}]*action="vacuum"[^}]*\} (\S+)$/gm),
    analyses: sum(/^store_upkeep_total\{[^}]*action="analyze"[^}]*\} (\S+)$/gm),
    checkpoints: sum(/^store_upkeep_total\{[^}]*action="checkpoint"[^}]*\} (\S+)$/gm),
    seconds: sum(/^store_upkeep_duration_seconds_sum\{[^}]*\} (\S+)$/gm),
  };
}

/**
 * The upkeep so far of the service at `url` (`services/embedded/src/store-upkeep.ts`,
 * `store-checkpoints.ts`); all zero for a service that keeps no embedded store.
 */
export async function storeUpkeepSoFar(url: string, tls: ClientTls): Promise<StoreUpkeepFigures> {
  const client = httpsClient({ baseUrl: url, ...tls });
  try {
    return parseStoreUpkeep((await client.get('/metrics')).text);
  } finally {
    client.close();
  }
}

/**
 * Reads the upkeep of the service at `url` now; the function returned says, as a table cell, what ran
 * since (as `cpuPerRecord` in import.bench.ts does for CPU).
 */
export async function upkeepSince(url: string, tls: ClientTls): Promise<() => Promise<string>> {
  const before = await storeUpkeepSoFar(url, tls);
  return async () => {
    const after = await storeUpkeepSoFar(url, tls);
    const vacuums = after.vacuums - before.vacuums;
    const analyses = after.analyses - before.analyses;
    const checkpoints = after.checkpoints - before.checkpoints;
    if (vacuums === 0 && analyses === 0 && checkpoints === 0) return 'none';
    const seconds = (after.seconds - before.seconds).toFixed(1);
    return `${vacuums} vacuums, ${analyses} analyses, ${checkpoints} checkpoints, ${seconds} s`;
  };
}
