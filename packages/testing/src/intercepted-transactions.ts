import type { SqlClient } from '@vop/event-store';

/**
 * `sql` with `beforeEach` called as each transaction is asked for (to count them, or to refuse one by
 * throwing: the transaction then rejects with that error and never begins).
 */
export function interceptTransactions(sql: SqlClient, beforeEach: () => void): SqlClient {
  return new Proxy(sql, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (property === 'transaction')
        return async (...args: Parameters<SqlClient['transaction']>) => {
          beforeEach();
          return target.transaction(...args);
        };
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}
