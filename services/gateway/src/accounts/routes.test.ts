import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { accountStreamId, parseAccountEvent } from '@vop/contracts';
import type { RecordedEvent, SqlExecutor } from '@vop/event-store';
import type { Principal } from '@vop/http';
import { accountEventProtector, type FieldCipher } from '@vop/personal-data';
import { germanIban, httpSpec, type GivenStream } from '@vop/testing';
import { appAs, freshGatewayStore, SPEC_SCHEMA as SCHEMA } from '../spec/in-process-edge.js';
import { isLiveTestAccount, migrateAccountsReadModel, projectAccountEvent } from './read-model.js';
import { accountRoutes } from './routes.js';
import { sandboxAccountRoutes } from './sandbox-routes.js';

const fixedDate = new Date('2026-03-02T10:15:00.000Z');
const now = fixedDate.toISOString();
const fixedUuid = '3f2b8c4e-7a1d-4e9f-b6c5-2d8e0a1f9c7b';
const existingId = '9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f';
const openedAt = '2026-02-20T08:00:00.000Z';
const iban = germanIban(532013000);
const name = 'Erika Mustermann';

const admin: Principal = {
  kind: 'certificate',
  participantId: 'BANK-ADMIN',
  fingerprint: 'ad'.repeat(32),
  admin: true,
};
const participant: Principal = {
  kind: 'certificate',
  participantId: 'PSDDE-BAFIN-123456',
  fingerprint: 'cd'.repeat(32),
  admin: false,
};

type NestedErrorBody = {
  error: { code: string; message: string; details?: { field?: string; reason?: string } };
};

/** Each run: a fresh in-memory database and the account routes behind authorization. */
function accountsSpec(principal: Principal) {
  return httpSpec({
    setup: async () => {
      const { sql, store, cipher } = await freshGatewayStore();
      await migrateAccountsReadModel(sql, SCHEMA);
      const protect = accountEventProtector(cipher);
      const options = { store, protect, clock: () => fixedDate, newId: () => fixedUuid };
      const app = appAs(
        principal,
        [sandboxAccountRoutes(options), accountRoutes(options)],
        'COBADEFFXXX',
      );
      const project = async (events: RecordedEvent[], tx: SqlExecutor) => {
        for (const { type, data } of events) {
          await projectAccountEvent(tx, SCHEMA, parseAccountEvent(type, data));
        }
      };
      return { store, app, cipher, project, close: () => sql.close() };
    },
  });
}

const asAdmin = accountsSpec(admin);

const openedAccount: GivenStream = {
  streamId: accountStreamId(existingId),
  events: [
    {
      type: 'AccountOpened',
      data: {
        accountId: existingId,
        iban,
        name,
        alternateNames: [],
        status: 'active',
        createdAt: openedAt,
      },
    },
  ],
};

/** One event, its holder name encrypted under the account's key: the plain name is not stored. */
async function assertOneEventWithEncryptedName(
  events: RecordedEvent[],
  cipher: FieldCipher,
  expected: { streamId: string; type: string; data: Record<string, unknown>; name: string },
): Promise<void> {
  assert.equal(events.length, 1);
  const [event] = events as [RecordedEvent];
  const { name: storedName, ...data } = event.data as { name: string };
  assert.deepEqual(
    { streamId: event.streamId, type: event.type, data },
    { streamId: expected.streamId, type: expected.type, data: expected.data },
  );
  assert.ok(storedName.startsWith('pd1:'), `stored name ${storedName} is not encrypted`);
  assert.ok(!JSON.stringify(event.data).includes(expected.name), 'the plain name is stored');
  assert.equal(await cipher.decrypt(storedName), expected.name);
}

const openedData = {
  accountId: fixedUuid,
  iban,
  alternateNames: [],
  status: 'active',
  createdAt: now,
};

describe('account routes (HTTP spec)', () => {
  it('given no account, when the bank opens one, then 201, AccountOpened (encrypted)', async () => {
    await asAdmin
      .given([])
      .when((request) => request.post('/accounts', { iban, name }))
      .then({
        status: 201,
        body: { id: fixedUuid, iban, name, created_at: now, updated_at: now },
        events: (events, { cipher }) =>
          assertOneEventWithEncryptedName(events, cipher, {
            streamId: accountStreamId(fixedUuid),
            type: 'AccountOpened',
            data: openedData,
            name,
          }),
      });
  });

  it('given an opened account, when it is read, then 200 without the name, no events', async () => {
    await asAdmin
      .given([openedAccount])
      .when((request) => request.get(`/api/accounts/${existingId}`))
      .then({
        status: 200,
        body: { id: existingId, iban, created_at: openedAt, updated_at: openedAt },
        events: [],
      });
  });

  it('given an opened account, when its name is changed, then 200 and AccountUpdated', async () => {
    const newName = 'Erika Musterfrau';
    await asAdmin
      .given([openedAccount])
      .when((request) => request.put(`/api/accounts/${existingId}`, { name: newName }))
      .then({
        status: 200,
        body: { id: existingId, iban, created_at: openedAt, updated_at: now },
        events: (events, { cipher }) =>
          assertOneEventWithEncryptedName(events, cipher, {
            streamId: accountStreamId(existingId),
            type: 'AccountUpdated',
            data: {
              accountId: existingId,
              iban,
              alternateNames: [],
              status: 'active',
              previousIban: iban,
              updatedAt: now,
            },
            name: newName,
          }),
      });
  });

  it('given an opened account, when it is deleted, then 204 and AccountDeleted', async () => {
    await asAdmin
      .given([openedAccount])
      .when((request) => request.delete(`/api/accounts/${existingId}`))
      .then({
        status: 204,
        body: undefined,
        events: [
          {
            streamId: accountStreamId(existingId),
            type: 'AccountDeleted',
            data: { accountId: existingId, iban, deletedAt: now },
          },
        ],
      });
  });

  it('given an account with IBAN X, when another opens with X, then 409, no events', async () => {
    await asAdmin
      .given([openedAccount])
      .when((request) => request.post('/accounts', { iban, name: 'Max Mustermann' }))
      .then({
        status: 409,
        body: {
          error: {
            code: 'IBAN_ALREADY_REGISTERED',
            message: 'An account with this IBAN already exists',
          },
        },
        events: [],
      });
  });

  it('given no account, when opened without a name, then 400 naming it, no events', async () => {
    await asAdmin
      .given([])
      .when((request) => request.post('/accounts', { iban }))
      .then({
        status: 400,
        body: (body: NestedErrorBody) => {
          assert.equal(body.error.code, 'INVALID_REQUEST');
          assert.deepEqual(body.error.details, { field: 'name', reason: 'MISSING_FIELD' });
        },
        events: [],
      });
  });

  it('given no account, when a non-admin opens one, then 403, no events', async () => {
    await accountsSpec(participant)
      .given([])
      .when((request) => request.post('/accounts', { iban, name }))
      .then({
        status: 403,
        body: (body: NestedErrorBody) => assert.equal(body.error.code, 'ACCESS_DENIED'),
        events: [],
      });
  });

  it('given no account, when a sandbox account is opened, then 201 with an acc_ id', async () => {
    await asAdmin
      .given([])
      .when((request) => request.post('/api/accounts', { iban, name }))
      .then({
        status: 201,
        body: { id: `acc_${fixedUuid}`, iban, name, created_at: now },
        events: async (events, { cipher, store }) => {
          await assertOneEventWithEncryptedName(events, cipher, {
            streamId: accountStreamId(fixedUuid),
            type: 'AccountOpened',
            data: openedData,
            name,
          });
          const isTestAccount = await isLiveTestAccount(store.sql, SCHEMA, fixedUuid);
          assert.ok(isTestAccount, 'not kept as a test account');
        },
      });
  });
});
