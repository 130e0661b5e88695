import { AccountHistoryQuery, type AccountStatusResponse, z } from '@vop/contracts';
import { errors, createRouter } from '@vop/http';
import type { SqlClient } from '@vop/event-store';
import { type Router } from 'express';
import { invalidParameter, parseQuery } from '../query-parameters.js';
import { accountHistory, decodeCursor } from './history.js';
import { findAccountStatus } from './read-model.js';

/** The record id as the API gives it: the UUID, or the sandbox's `acc_<uuid>` form. */
const AccountRecordId = z
  .string()
  .regex(/^(acc_)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i)
  .transform((id) => id.replace(/^acc_/, '').toLowerCase());

const notFound = () => errors.notFound('ACCOUNT_NOT_FOUND', 'The account does not exist');

/** GET /account/{id}/status and /history (the analytics family: nested errors). */
export function accountRoutes(options: {
  sql: SqlClient;
  schema: string;
  clock: () => Date;
}): Router {
  const { sql, schema, clock } = options;
  const router = createRouter();
  const resolve = async (raw: unknown) => {
    const id = AccountRecordId.safeParse(raw);
    if (!id.success) throw notFound();
    const account = await findAccountStatus(sql, schema, id.data);
    if (account === undefined) throw notFound();
    return account;
  };

  router.get('/account/:accountId/status', async (req, res) => {
    const account = await resolve(req.params.accountId);
    const body: AccountStatusResponse = {
      accountId: String(req.params.accountId),
      status: account.status,
      available: account.status === 'active',
      updated_at: account.updatedAt,
    };
    res.json(body);
  });

  router.get('/account/:accountId/history', async (req, res) => {
    const query = parseQuery(AccountHistoryQuery, req.query);
    const account = await resolve(req.params.accountId);
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    if (query.cursor !== undefined && after === undefined)
      throw invalidParameter('cursor', 'INVALID_VALUE');
    const page = await accountHistory(sql, schema, {
      accountId: account.accountId,
      limit: query.limit,
      after,
      now: clock(),
    });
    res.json({ accountId: String(req.params.accountId), ...page });
  });
  return router;
}
