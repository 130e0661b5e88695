import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '@vop/http';
import { createLogger } from '@vop/observability';
import { httpSpec, type GivenStream } from '@vop/testing';
import { appAs, freshGatewayStore } from '../spec/in-process-edge.js';
import { BANK_CODES_STREAM } from './bank-code-decider.js';
import { BANK_CODES_BODY_LIMIT, BANK_CODES_PATH, bankCodeRoutes } from './bank-code-routes.js';
import { BankCodeTable } from './bank-code-table.js';

const fixedDate = new Date('2026-11-29T09:00:00.000Z');
const now = fixedDate.toISOString();
const admin: Principal = {
  kind: 'certificate',
  participantId: 'BANK-ADMIN',
  fingerprint: 'ad'.repeat(32),
  admin: true,
};
const participant: Principal = { ...admin, participantId: 'PSDDE-BAFIN-1', admin: false };
const csv = { 'content-type': 'text/csv' };

function bankCodesSpec(principal: Principal) {
  return httpSpec({
    setup: async () => {
      const { sql, store } = await freshGatewayStore();
      const logger = createLogger({ service: 'spec', level: 'silent' });
      const table = new BankCodeTable({ store, logger });
      const app = appAs(principal, [bankCodeRoutes({ table, clock: () => fixedDate })], undefined, {
        csvBodyPaths: { [BANK_CODES_PATH]: BANK_CODES_BODY_LIMIT },
      });
      return { store, app, table, close: () => sql.close() };
    },
  });
}
const asAdmin = bankCodesSpec(admin);

const firstTable: GivenStream = {
  streamId: BANK_CODES_STREAM,
  events: [
    {
      type: 'BankCodeTableLoaded',
      data: {
        version: 1,
        loadedAt: '2026-11-28T09:00:00.000Z',
        loadedBy: 'BANK-ADMIN',
        entries: 1,
        codes: { DE: [['10070000', 'DEUTDEBBXXX']] },
      },
    },
  ],
};

const file =
  'country,bank_code,bic\nDE,10070000,DEUTDEBB\nDE,50040000,COBADEFFXXX\nAT,12000,BKAUATWW\n';

describe('bank-code table routes (HTTP spec)', () => {
  it('given no table, when the admin loads a CSV file, then version 1 and BankCodeTableLoaded', async () => {
    await asAdmin
      .given([])
      .when((request) =>
        request.send('PUT', `${BANK_CODES_PATH}?tableId=blz-2026-12`, {
          // As spreadsheets save it: a BOM and CRLF.
          rawBody: `\uFEFF${file.replaceAll('\n', '\r\n')}`,
          headers: csv,
        }),
      )
      .then({
        status: 200,
        headers: { etag: '"1"' },
        body: {
          version: 1,
          tableId: 'blz-2026-12',
          loadedAt: now,
          loadedBy: 'BANK-ADMIN',
          entries: 3,
          countries: { AT: 1, DE: 2 },
        },
        events: [
          {
            type: 'BankCodeTableLoaded',
            data: {
              version: 1,
              tableId: 'blz-2026-12',
              loadedAt: now,
              loadedBy: 'BANK-ADMIN',
              entries: 3,
              codes: {
                DE: [
                  ['10070000', 'DEUTDEBBXXX'],
                  ['50040000', 'COBADEFFXXX'],
                ],
                AT: [['12000', 'BKAUATWWXXX']],
              },
            },
          },
        ],
      });
  });

  it('given version 1, when a load names it in If-Match, then it is version 2 and GET serves it', async () => {
    await asAdmin
      .given([firstTable])
      .when(async (request, { table }) => {
        await table.refresh();
        const before = await request.get(BANK_CODES_PATH);
        assert.deepEqual([before.status, before.headers.etag], [200, '"1"']);
        const put = await request.send('PUT', BANK_CODES_PATH, {
          rawBody: file,
          headers: { ...csv, 'If-Match': '"1"' },
        });
        assert.equal(put.status, 200, JSON.stringify(put.body));
        return request.get(BANK_CODES_PATH);
      })
      .then({
        status: 200,
        headers: { etag: '"2"' },
        body: {
          version: 2,
          loadedAt: now,
          loadedBy: 'BANK-ADMIN',
          entries: 3,
          countries: { AT: 1, DE: 2 },
        },
        events: (events) =>
          assert.deepEqual(
            events.map((each) => each.type),
            ['BankCodeTableLoaded'],
          ),
      });
  });

  it('given version 1, when a load expects version 0 (the first), then 409 VERSION_MISMATCH', async () => {
    await asAdmin
      .given([firstTable])
      .when((request) =>
        request.send('PUT', BANK_CODES_PATH, {
          rawBody: file,
          headers: { ...csv, 'If-Match': '0' },
        }),
      )
      .then({
        status: 409,
        body: {
          error: 'VERSION_MISMATCH',
          message: 'The bank-code table is at version 1, not 0',
        },
        events: [],
      });
  });

  it('when a file has bad rows, then 400 naming the first line and listing the problems; nothing loaded', async () => {
    await asAdmin
      .given([])
      .when((request) =>
        request.send('PUT', BANK_CODES_PATH, {
          rawBody: 'DE,10070000,DEUTDEBB\r\nDE,1007000X,DEUTDEBB\r\nDE,50040000,COBADEFFXXX,x\r\n',
          headers: csv,
        }),
      )
      .then({
        status: 400,
        body: {
          error: 'INVALID_REQUEST',
          message:
            '2 rows are invalid: line 2, column bank_code: "1007000X" is not a bank code of DE ' +
            '(8 characters as the IBAN holds them, ^[0-9]{8}$); ' +
            'line 3, 4 columns where country,bank_code,bic are 3',
          field: 'line 2',
        },
        events: [],
      });
  });

  it('when the body is JSON, then 415; when nothing is loaded, GET is 404', async () => {
    await asAdmin
      .given([])
      .when(async (request) => {
        const json = await request.put(BANK_CODES_PATH, { country: 'DE' });
        assert.deepEqual(
          [json.status, (json.body as { error: string }).error],
          [415, 'UNSUPPORTED_MEDIA_TYPE'],
        );
        return request.get(BANK_CODES_PATH);
      })
      .then({
        status: 404,
        body: { error: 'NOT_FOUND', message: 'No bank-code table is loaded' },
        events: [],
      });
  });

  it('when a participant (not the admin) loads a table, then 403', async () => {
    await bankCodesSpec(participant)
      .given([])
      .when((request) => request.send('PUT', BANK_CODES_PATH, { rawBody: file, headers: csv }))
      .then({
        status: 403,
        body: (body: { error: string }) => assert.equal(body.error, 'ACCESS_DENIED'),
        events: [],
      });
  });

  it('loads the largest file, 200,000 rows, within the management deadline', async () => {
    const rows = Array.from(
      { length: 200_000 },
      (_, index) => `DE,${String(10_000_000 + index)},DEUTDEBBXXX`,
    );
    await asAdmin
      .given([])
      .when((request) =>
        request.send('PUT', BANK_CODES_PATH, { rawBody: rows.join('\r\n'), headers: csv }),
      )
      .then({
        status: 200,
        body: (body: { entries: number }) => assert.equal(body.entries, 200_000),
        events: (events) => assert.equal(events.length, 1),
      });
  });
});
