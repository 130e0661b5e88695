import { createPgliteClient, EventStore, type SqlClient } from '@vop/event-store';
import {
  authorizeByFamily,
  createHttpApp,
  setPrincipal,
  type HttpAppOptions,
  type Principal,
} from '@vop/http';
import { createLogger } from '@vop/observability';
import { createPersonalData, type PersonalData } from '@vop/personal-data';
import type { Express, Router } from 'express';

export const SPEC_SCHEMA = 'gateway';

/** For the in-process HTTP specs: a fresh in-memory store with its keystore, migrated. */
export async function freshGatewayStore(): Promise<
  { sql: SqlClient; store: EventStore } & PersonalData
> {
  const sql = await createPgliteClient({});
  const store = new EventStore(sql, { schema: SPEC_SCHEMA });
  const personalData = createPersonalData(sql);
  await personalData.keys.migrate();
  await store.migrate();
  return { sql, store, ...personalData };
}

/**
 * For the in-process HTTP specs: the routers behind the edge's authorization, as this principal
 * (what mutual TLS or an API key establishes in the gateway).
 */
export function appAs(
  principal: Principal,
  routers: Router[],
  respondingPsp = 'VOPBDEFFXXX',
  bodies: Pick<HttpAppOptions, 'largeBodyPaths' | 'csvBodyPaths'> = {},
): Express {
  return createHttpApp({
    ...bodies,
    logger: createLogger({ service: 'spec', level: 'silent' }),
    respondingPsp,
    beforeRoutes: [
      (_req, res, next) => {
        setPrincipal(res, principal);
        next();
      },
      authorizeByFamily,
    ],
    routers,
  });
}
