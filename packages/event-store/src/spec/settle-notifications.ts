import { randomBytes } from 'node:crypto';
import type { SqlClient } from '../types.js';
import { waitUntil } from './wait-until.js';

/**
 * Resolves once every notification committed so far has reached this client's listeners, so a test can
 * assert that one did NOT arrive without sleeping.
 * Postgres delivers notifications to a listening session in commit order, so a marker sent now arrives last.
 */
export async function settlePostgresNotifications(sql: SqlClient): Promise<void> {
  const marker = `settle_${randomBytes(6).toString('hex')}`;
  let arrived = false;
  const stop = await sql.listen(marker, () => {
    arrived = true;
  });
  try {
    await sql.notify(marker);
    await waitUntil(() => arrived, 'the marker notification');
  } finally {
    await stop();
  }
}

/** The PGlite client delivers on the next turn of the event loop (setImmediate) after commit. */
export async function settlePgliteNotifications(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}
