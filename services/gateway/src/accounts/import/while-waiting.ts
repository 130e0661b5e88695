import { setImmediate as turn } from 'node:timers/promises';

const NOT_YET = Symbol('not yet');

/**
 * The source's items in order; whenever the next one has not come by the next turn of the event loop
 * (an upload with nothing more buffered), the work `pending()` hands out runs before waiting on. The
 * import starts writing the chunk it looked up ahead there (import-run.ts): what was read is applied
 * however slowly the rest of the upload comes. An item already buffered costs no wait.
 */
export async function* whileWaiting<T>(
  source: AsyncIterable<T>,
  pending: () => (() => Promise<void>) | undefined,
): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let ended = false;
  try {
    for (;;) {
      const next = iterator.next();
      const work = pending();
      if (work !== undefined && (await Promise.race([next, turn(NOT_YET)])) === NOT_YET)
        await work();
      const result = await next;
      if (result.done === true) {
        ended = true;
        return;
      }
      yield result.value;
    }
  } finally {
    // Left early (the consumer stopped, or failed): the source is told, as `for await` would.
    if (!ended) await iterator.return?.();
  }
}
