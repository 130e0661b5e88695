/**
 * Metadata calls right after a topic is created (by this process or another one starting beside it)
 * can meet partitions whose leader is not elected yet: Kafka answers with retriable errors such as
 * NOT_LEADER_FOR_PARTITION or LEADER_NOT_AVAILABLE, which the admin client does not retry itself.
 * Retries those, with a growing pause, a bounded number of times; anything else fails at once.
 */
export async function retryRetriable<T>(work: () => Promise<T>, attempts = 12): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const retriable = (error as { retriable?: unknown }).retriable === true;
      if (!retriable || attempt >= attempts) throw error;
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(100 * 2 ** (attempt - 1), 2_000)),
      );
    }
  }
}
