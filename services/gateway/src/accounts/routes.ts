import { AccountIdParam, CreateAccountRequest, UpdateAccountRequest } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import { type Router } from 'express';
import { ApiError, errors, parseBody, parseParam, requestMetadata, createRouter } from '@vop/http';
import { handleAccountCommand } from './command-handler.js';
import type { AccountEventProtector } from '@vop/personal-data';
import type { AccountCopyAtCommit } from '@vop/verifications';
import { AccountAlreadyExistsError, AccountNotFoundError, type AccountState } from './decider.js';
import { duplicateAccountConflict, findLiveAccount } from './read-model.js';

const accountNotFound = (): ApiError =>
  errors.notFound('ACCOUNT_NOT_FOUND', 'The account does not exist');

function translateDomainError(error: unknown): never {
  if (error instanceof AccountNotFoundError) throw accountNotFound();
  if (error instanceof AccountAlreadyExistsError)
    throw errors.conflict('ACCOUNT_EXISTS', 'The account already exists');
  throw duplicateAccountConflict(error) ?? error;
}

function openState(state: AccountState): Extract<AccountState, { status: 'open' }> {
  if (state.status !== 'open') throw new Error('account is not open after a successful command');
  return state;
}

export interface AccountRoutesOptions {
  store: EventStore;
  protect: AccountEventProtector;
  /** The copies of the accounts that decisions read, written with each account write (read your writes). */
  copy?: AccountCopyAtCommit;
  clock: () => Date;
  newId: () => string;
}

/** Account records: the bank's own data, written as events, read from the gateway's inline view. */
export function accountRoutes({
  store,
  protect,
  copy,
  clock,
  newId,
}: AccountRoutesOptions): Router {
  const router = createRouter();

  router.post('/accounts', async (req, res) => {
    const body = parseBody(CreateAccountRequest, req.body);
    const accountId = newId();
    const now = clock().toISOString();
    const state = await handleAccountCommand(
      store,
      { type: 'OpenAccount', accountId, fields: body, now },
      requestMetadata(req),
      {},
      protect,
      copy,
    ).catch(translateDomainError);
    const { account, createdAt, updatedAt } = openState(state);
    // The stored name is encrypted; the create response echoes the name the bank sent.
    res.status(201).json({
      id: account.accountId,
      iban: account.iban,
      name: body.name,
      created_at: createdAt,
      updated_at: updatedAt,
    });
  });

  router.get('/api/accounts/:id', async (req, res) => {
    const id = parseParam(AccountIdParam, req.params.id, accountNotFound);
    const row = await findLiveAccount(store.sql, store.schema, id);
    if (!row) throw accountNotFound();
    res.json({
      id: row.id,
      iban: row.iban,
      created_at: new Date(row.created_at).toISOString(),
      updated_at: new Date(row.updated_at).toISOString(),
    });
  });

  router.put('/api/accounts/:id', async (req, res) => {
    const id = parseParam(AccountIdParam, req.params.id, accountNotFound);
    const changes = parseBody(UpdateAccountRequest, req.body);
    const now = clock().toISOString();
    const state = await handleAccountCommand(
      store,
      { type: 'UpdateAccount', accountId: id, changes, now },
      requestMetadata(req),
      {},
      protect,
      copy,
    ).catch(translateDomainError);
    const { account, createdAt, updatedAt } = openState(state);
    res.json({
      id: account.accountId,
      iban: account.iban,
      created_at: createdAt,
      updated_at: updatedAt,
    });
  });

  router.delete('/api/accounts/:id', async (req, res) => {
    const id = parseParam(AccountIdParam, req.params.id, accountNotFound);
    await handleAccountCommand(
      store,
      { type: 'DeleteAccount', accountId: id, now: clock().toISOString() },
      requestMetadata(req),
      {},
      undefined,
      copy,
    ).catch(translateDomainError);
    res.status(204).end();
  });

  return router;
}
