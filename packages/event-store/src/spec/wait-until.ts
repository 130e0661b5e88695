import { setTimeout as sleep } from 'node:timers/promises';

/** Polls until predicate holds. The deadline only keeps a broken build from hanging; no test asserts on time. */
export async function waitUntil(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  deadlineMs = 15_000,
): Promise<void> {
  const giveUpAt = Date.now() + deadlineMs;
  while (!(await predicate())) {
    if (Date.now() > giveUpAt) throw new Error(`Gave up waiting for ${what}`);
    await sleep(10);
  }
}
