import { CreateAccountRequest } from '@vop/contracts';
import { type Router } from 'express';
import { errors, parseBody, requestMetadata, createRouter } from '@vop/http';
import { handleAccountCommand } from './command-handler.js';
import type { AccountRoutesOptions } from './routes.js';
import { AccountAlreadyExistsError, AccountNotFoundError } from './decider.js';
import { duplicateAccountConflict, isLiveTestAccount } from './read-model.js';

/** Test accounts are named `acc_<uuid>` on the sandbox endpoints; the aggregate keeps the bare UUID. */
const TEST_ACCOUNT_ID = /^acc_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export const testAccountId = (accountId: string): string => `acc_${accountId}`;

const testAccountNotFound = () =>
  errors.notFound('ACCOUNT_NOT_FOUND', 'The test account does not exist');

/**
 * The test-only endpoints (the account-records-api row of packages/http/src/route-families.ts): mounted only in `test` deployments, so a `live` one answers 404.
 * Live credentials never get here: a test deployment refuses them at authentication.
 */
export function sandboxAccountRoutes({
  store,
  protect,
  copy,
  clock,
  newId,
}: AccountRoutesOptions): Router {
  const router = createRouter();

  router.post('/api/accounts', async (req, res) => {
    const body = parseBody(CreateAccountRequest, req.body);
    const accountId = newId();
    const now = clock().toISOString();
    await handleAccountCommand(
      store,
      { type: 'OpenAccount', accountId, fields: body, now },
      requestMetadata(req),
      { testAccount: true },
      protect,
      copy,
    ).catch((error: unknown) => {
      if (error instanceof AccountAlreadyExistsError)
        throw errors.conflict('ACCOUNT_EXISTS', 'The account already exists');
      throw duplicateAccountConflict(error) ?? error;
    });
    res
      .status(201)
      .json({ id: testAccountId(accountId), iban: body.iban, name: body.name, created_at: now });
  });

  // Only the `acc_` form is the sandbox's; a bare UUID falls through to the bank's DELETE (204).
  router.delete('/api/accounts/:accountId', async (req, res, next) => {
    const match = TEST_ACCOUNT_ID.exec(String(req.params.accountId));
    if (!match) return next();
    const accountId = (match[1] as string).toLowerCase();
    if (!(await isLiveTestAccount(store.sql, store.schema, accountId))) throw testAccountNotFound();
    await handleAccountCommand(
      store,
      { type: 'DeleteAccount', accountId, now: clock().toISOString() },
      requestMetadata(req),
      {},
      undefined,
      copy,
    ).catch((error: unknown) => {
      throw error instanceof AccountNotFoundError ? testAccountNotFound() : error;
    });
    res.json({
      status: 'deleted',
      message: `Test account ${testAccountId(accountId)} was deleted`,
    });
  });

  return router;
}
