import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '@vop/http';
import { createLogger } from '@vop/observability';
import { httpSpec, type HttpSpecRequest } from '@vop/testing';
import { appAs, freshGatewayStore } from '../spec/in-process-edge.js';
import { SCHEME_DIRECTORY_STREAM } from './decider.js';
import {
  SCHEME_DIRECTORY_BODY_LIMIT,
  SCHEME_DIRECTORY_PATH,
  schemeDirectoryRoutes,
} from './routes.js';
import { SchemeDirectory } from './scheme-directory.js';

const fixedDate = new Date('2026-11-29T09:00:00.000Z');
const admin: Principal = {
  kind: 'certificate',
  participantId: 'BANK-ADMIN',
  fingerprint: 'ad'.repeat(32),
  admin: true,
};

const asAdmin = httpSpec({
  setup: async () => {
    const { sql, store } = await freshGatewayStore();
    const logger = createLogger({ service: 'spec', level: 'silent' });
    const directory = new SchemeDirectory({ store, environment: 'test', logger });
    const routes = schemeDirectoryRoutes({ directory, clock: () => fixedDate });
    const app = appAs(admin, [routes], undefined, {
      largeBodyPaths: { [SCHEME_DIRECTORY_PATH]: SCHEME_DIRECTORY_BODY_LIMIT },
    });
    return { store, app, directory, close: () => sql.close() };
  },
});

const endpoint = { uri: 'https://vop.bank.example/vop/v1', priority: 1, apiVersion: '1.1.1' };
const responder = (extra: object = {}) => ({
  authorisationNumber: 'PSDDE-BAFIN-200001',
  bics: ['BYLADEMMXXX'],
  environment: 'T',
  roles: ['requesting', 'responding'],
  endpoints: [endpoint],
  ...extra,
});
/** Three good participants, then the one under test at index 3. */
const snapshotWith = (fourth: object) => ({
  snapshotId: 'eds-2026-11-29',
  participants: [
    { authorisationNumber: 'PSDDE-BAFIN-100001', bics: ['DEUTDEFFXXX'], environment: 'T' },
    { ...responder(), authorisationNumber: 'PSDDE-BAFIN-100002', bics: ['COBADEFFXXX'] },
    {
      authorisationNumber: 'PSDDE-BAFIN-100003',
      bics: ['GENODEF1'],
      environment: 'T',
      roles: ['responding'],
    },
    fourth,
  ],
});

type Refusal = { error: string; message: string; field: string };
const refusalOf = async (request: HttpSpecRequest, fourth: object): Promise<Refusal> => {
  const response = await request.put(SCHEME_DIRECTORY_PATH, snapshotWith(fourth));
  assert.equal(response.status, 400, JSON.stringify(response.body));
  return response.body as Refusal;
};

describe('scheme directory routes (HTTP spec)', () => {
  it('given nothing, when a snapshot with roles and endpoints loads, then version 1 and the index routes it', async () => {
    await asAdmin
      .given([])
      .when((request) => request.put(SCHEME_DIRECTORY_PATH, snapshotWith(responder())))
      .then({
        status: 200,
        body: (body: { version: number; participants: number }, { directory }) => {
          assert.deepEqual([body.version, body.participants], [1, 4]);
          assert.deepEqual(directory.current()?.responderHolding('BYLADEMMXXX'), {
            authorisationNumber: 'PSDDE-BAFIN-200001',
            endpoints: [endpoint],
          });
        },
        events: (events) =>
          assert.deepEqual(
            events.map((each) => [each.streamId, each.type]),
            [[SCHEME_DIRECTORY_STREAM, 'SchemeDirectoryLoaded']],
          ),
      });
  });

  it('refuses each bad endpoint, naming its exact path and what is wrong', async () => {
    await asAdmin
      .given([])
      .when(async (request) => {
        const cases: [object, string, RegExp][] = [
          [{ uri: 'http://vop.bank.example/vop/v1' }, 'uri', /https: URL/],
          [{ uri: 'https://user:secret@vop.bank.example/vop/v1' }, 'uri', /without credentials/],
          [{ uri: 'https://vop.bank.example/vop/v1?x=1' }, 'uri', /query/],
          [{ uri: 'https://vop.bank.example/vop/v1#top' }, 'uri', /fragment/],
          [{ uri: '/vop/v1' }, 'uri', /absolute/],
          [{ priority: 0 }, 'priority', /Invalid value/],
          [{ priority: 100 }, 'priority', /Invalid value|Too/],
          [{ priority: 1.5 }, 'priority', /Wrong type|Invalid/],
          [{ apiVersion: 'v1' }, 'apiVersion', /must be a version like 1\.1\.1/],
          [{ validFrom: '2026-12-01T00:00:00' }, 'validFrom', /Invalid value/],
        ];
        for (const [change, field, message] of cases) {
          const refused = await refusalOf(
            request,
            responder({ endpoints: [{ ...endpoint, ...change }] }),
          );
          assert.equal(
            refused.field,
            `participants[3].endpoints[0].${field}`,
            JSON.stringify(change),
          );
          assert.match(refused.message, message, JSON.stringify(change));
        }
        const roles = await refusalOf(request, responder({ roles: [] }));
        assert.equal(roles.field, 'participants[3].roles');
        const unknownRole = await refusalOf(request, responder({ roles: ['routing'] }));
        assert.equal(unknownRole.field, 'participants[3].roles[0]');
        const many = Array.from({ length: 21 }, (_, index) => ({
          ...endpoint,
          priority: index + 1,
        }));
        assert.equal(
          (await refusalOf(request, responder({ endpoints: many }))).field,
          'participants[3].endpoints',
        );
        return request.get(SCHEME_DIRECTORY_PATH);
      })
      .then({
        status: 404,
        body: (body: Refusal) => assert.equal(body.error, 'NOT_FOUND'),
        events: [],
      });
  });

  it('refuses a shared priority and a BIC held twice, naming the path and both holders', async () => {
    await asAdmin
      .given([])
      .when(async (request) => {
        const priority = await refusalOf(
          request,
          responder({ endpoints: [endpoint, { ...endpoint, uri: 'https://b.bank.example/vop' }] }),
        );
        assert.deepEqual(priority, {
          error: 'INVALID_REQUEST',
          message:
            'Participant PSDDE-BAFIN-200001 has two endpoints of priority 1; give each its own',
          field: 'participants[3].endpoints[1].priority',
        });
        const shared = await refusalOf(
          request,
          responder({ bics: ['BYLADEMMXXX', 'GENODEF1XXX'] }),
        );
        assert.deepEqual(shared, {
          error: 'INVALID_REQUEST',
          message:
            'BIC GENODEF1XXX is held by both PSDDE-BAFIN-100003 and PSDDE-BAFIN-200001 in one ' +
            'environment; a BIC names one participant',
          field: 'participants[3].bics[1]',
        });
        // In the other environment the same BIC is another participant's to hold.
        return request.put(
          SCHEME_DIRECTORY_PATH,
          snapshotWith(responder({ bics: ['GENODEF1XXX'], environment: 'L' })),
        );
      })
      .then({
        status: 200,
        body: (body: { version: number }) => assert.equal(body.version, 1),
        events: (events) => assert.equal(events.length, 1),
      });
  });

  it('given a snapshot stored before roles and endpoints existed, it is served with both roles', async () => {
    await asAdmin
      .given([
        {
          streamId: SCHEME_DIRECTORY_STREAM,
          events: [
            {
              type: 'SchemeDirectoryLoaded',
              data: {
                version: 1,
                snapshot: {
                  snapshotId: 'eds-old',
                  participants: [
                    { authorisationNumber: 'PSDDE-BAFIN-1', bics: ['DEUTDEFF'], environment: 'T' },
                  ],
                },
                loadedAt: '2026-11-25T08:00:00.000Z',
                loadedBy: 'BANK-ADMIN',
              },
            },
          ],
        },
      ])
      .when(async (request, { directory }) => {
        await directory.refresh();
        return request.get(SCHEME_DIRECTORY_PATH);
      })
      .then({
        status: 200,
        body: (body: { version: number }, { directory }) => {
          assert.equal(body.version, 1);
          const index = directory.current();
          assert.equal(index?.adherence('PSDDE-BAFIN-1', 'DEUTDEFFXXX'), 'ADHERENT');
          assert.deepEqual(index?.responderHolding('DEUTDEFFXXX'), {
            authorisationNumber: 'PSDDE-BAFIN-1',
            endpoints: [],
          });
        },
        events: [],
      });
  });
});
