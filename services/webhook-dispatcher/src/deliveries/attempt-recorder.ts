/**
 * Group commit: records handed in while a write is running are written together by the next one,
 * so attempts finishing at once cost one transaction, not one each. `record` resolves once its
 * record is committed (or rejects with the write's error).
 */
export function createGroupCommit<T>(write: (records: T[]) => Promise<void>) {
  let queue: { record: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let writing = false;

  async function drain(): Promise<void> {
    writing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await write(batch.map((item) => item.record));
        for (const item of batch) item.resolve();
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
    writing = false;
  }

  return {
    record(record: T): Promise<void> {
      return new Promise((resolve, reject) => {
        queue.push({ record, resolve, reject });
        if (!writing) void drain();
      });
    },
  };
}
