import { parseAccountEvent } from '@vop/contracts';
import type { SqlClient } from '@vop/event-store';
import type { Bus } from '@vop/messaging';
import { parseEnvelope } from '@vop/outbox';
import { migrateDomesticAccounts, projectDomesticAccount } from './read-model.js';

export interface DomesticAccountsRebuildOptions {
  sql: SqlClient;
  schema: string;
  bus: Bus;
  /** The account events' topic (vop.account-events.v1 under the deployment's namespace). */
  topic: string;
  /** A group with no offsets, read from the topic's first message; used once. */
  groupId: string;
  /** How long to wait for the replay to reach the end of the topic. Default 10 minutes. */
  timeoutMs?: number;
}

/**
 * Empties the domestic accounts read model and projects it again from the account events, read from
 * the start of their topic under a group of its own until that group has no lag. The projection keeps
 * each account's newest state whatever the order (read-model.ts), so it needs no inbox here: the live
 * consumer's group and processed ids are left alone, and it goes on from its own offsets.
 */
export async function rebuildDomesticAccounts(
  options: DomesticAccountsRebuildOptions,
): Promise<{ events: number }> {
  const { sql, schema, bus, topic, groupId } = options;
  const consumerLag = bus.consumerLag?.bind(bus);
  if (!consumerLag) throw new Error('rebuilding needs a bus that reports consumer lag');
  await migrateDomesticAccounts(sql, schema);
  await sql.query(`TRUNCATE ${schema}.domestic_accounts`);
  let events = 0;
  const subscription = await bus.subscribe({
    groupId,
    topics: [topic],
    fromBeginning: true,
    batchHandler: async (messages) => {
      const accountEvents = messages.map((message) => {
        const envelope = parseEnvelope(message);
        return parseAccountEvent(envelope.type, envelope.data);
      });
      await sql.transaction(async (tx) => {
        for (const event of accountEvents) await projectDomesticAccount(tx, schema, event);
      });
      events += accountEvents.length;
    },
  });
  try {
    const deadline = Date.now() + (options.timeoutMs ?? 600_000);
    while ((await consumerLag(groupId, [topic])) > 0) {
      if (Date.now() > deadline)
        throw new Error(`the replay of ${topic} did not reach its end in time`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await subscription.close();
  }
  return { events };
}
