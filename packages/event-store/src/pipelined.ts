/**
 * Waits for statements sent on one transaction without waiting for each other, and fails with the first
 * of them that failed. Why send them so: on PGlite's thread (pglite-thread.ts) statements already sent
 * run back to back, where awaiting each one left the transaction open, holding the database, for a round
 * trip between the threads per statement; node-postgres queues them on its connection, as if awaited
 * one by one. Every promise is waited for, so none fails unhandled, and a later statement's "current
 * transaction is aborted" never hides the failure that caused it.
 */
export async function pipelined(writes: readonly Promise<unknown>[]): Promise<void> {
  const settled = await Promise.allSettled(writes);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}
