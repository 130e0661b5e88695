/**
 * An error and the errors it wraps, outermost first: kafkajs wraps the last failure after its retries
 * in `originalError` (and `cause`), node-postgres and Node in `cause`. At most `depth` of them.
 */
export function* errorChain(error: unknown, depth = 5): Generator<Record<string, unknown>> {
  for (
    let current = error, seen = 0;
    current && typeof current === 'object' && seen < depth;
    seen++
  ) {
    const links = current as Record<string, unknown>;
    yield links;
    current = links['originalError'] ?? links['cause'];
  }
}
