/** One part of a service's start. */
export interface StartPart {
  start(): Promise<void>;
  /** Undoes the part's start, also one that failed half-way; none when there is nothing to undo. */
  stop?(): Promise<void>;
}

/**
 * Starts the parts one after another. When one fails, it and the parts before it are stopped in
 * reverse order (their own errors ignored) and the failure is thrown, so the start can be tried again.
 */
export async function startInOrder(parts: readonly StartPart[]): Promise<void> {
  for (const [index, part] of parts.entries()) {
    try {
      await part.start();
    } catch (error) {
      for (const begun of parts.slice(0, index + 1).reverse())
        await begun.stop?.().catch(() => undefined);
      throw error;
    }
  }
}

/** Closes and forgets each of `opened` in order, going on past a close that fails. */
export async function closeQuietly(opened: { close(): Promise<void> }[]): Promise<void> {
  for (const each of opened.splice(0)) await each.close().catch(() => undefined);
}
