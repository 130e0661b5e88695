import { createPgliteClient } from '@vop/event-store';
import { createInProcessBus } from '@vop/messaging';
import { coreBankingFeedSpec } from './feed-spec.js';

coreBankingFeedSpec('PGlite and the in-process bus', async () => {
  const sql = await createPgliteClient({});
  const bus = createInProcessBus();
  return {
    sql,
    bus,
    close: async () => {
      await bus.close();
      await sql.close();
    },
  };
});
