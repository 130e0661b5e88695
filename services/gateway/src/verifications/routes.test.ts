import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseVerificationRequested,
  parseVerificationEnd,
  VerificationEvent,
  type VerificationCompletedData,
  type VerificationRequestedData,
  type VerificationEnd,
} from '@vop/contracts';
import type { EventStore, NewEvent, RecordedEvent, SqlExecutor } from '@vop/event-store';
import type { Principal } from '@vop/http';
import { protectMatchedName, protectTypedName, type FieldCipher } from '@vop/personal-data';
import { germanIban, httpSpec, type GivenStream } from '@vop/testing';
import {
  decideVerification,
  evolveVerification,
  initialVerificationState,
  verificationRecorder,
  verificationStreamId,
  type RecordVerification,
} from '@vop/verifications';
import { appAs, freshGatewayStore, SPEC_SCHEMA as SCHEMA } from '../spec/in-process-edge.js';
import {
  findEndedVerifications,
  pendingVerificationsWrite,
  migrateVerificationsReadModel,
  recordVerificationEnds,
} from './read-model.js';
import { createLogger } from '@vop/observability';
import { requesterCheck } from '../scheme-directory/requester-check.js';
import { SchemeDirectory } from '../scheme-directory/scheme-directory.js';
import { verificationRoutes } from './routes.js';
import { CompletionWaiters } from './waiters.js';

const fixedDate = new Date('2026-03-02T10:15:00.000Z');
const fixedUuid = '6a0f3e2d-1c4b-4a5e-9f8d-7c6b5a4e3d2c';
const completedAt = '2026-03-02T10:15:00.040Z';
const iban = germanIban(532013000);
const holderName = 'Erika Mustermann';
const holderAccountId = '9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f';
const typedName = 'ERIKA MUSTERMANN';
const BICS = { partyAgent: 'COBADEFFXXX', requestingAgent: 'DEUTDEFFXXX' };

const principal: Principal = {
  kind: 'certificate',
  participantId: 'PSDDE-BAFIN-123456',
  organizationIdentifier: 'PSDDE-BAFIN-123456',
  fingerprint: 'cd'.repeat(32),
  admin: false,
};

/** The directory the EPC specs load: the caller's participant with its BIC, in the test environment. */
const directorySnapshot = {
  snapshotId: 'spec',
  participants: [
    {
      authorisationNumber: 'PSDDE-BAFIN-123456',
      bics: [BICS.requestingAgent],
      environment: 'T' as const,
    },
  ],
};

/** As test/src/embedded/fixtures.ts builds it. */
function schemeRequest(name: string | undefined) {
  return {
    party: { ...(name !== undefined && { name }) },
    partyAccount: { iban },
    partyAgent: { financialInstitutionId: { bicfi: BICS.partyAgent } },
    requestingAgent: { financialInstitutionId: { bicfi: BICS.requestingAgent } },
  };
}

type Outcome = VerificationCompletedData['outcome'];

/**
 * The matching service's answer, decided from the recorded stream by the pure verification decider;
 * the disclosed name travels encrypted under the holder's key, as matching sends it.
 */
async function matchingAnswer(
  store: EventStore,
  cipher: FieldCipher,
  verificationId: string,
  outcome: Outcome,
): Promise<VerificationCompletedData> {
  const stored = await store.readStream(verificationStreamId(verificationId));
  const state = stored
    .map(({ type, data }) => VerificationEvent.parse({ type, data }))
    .reduce(evolveVerification, initialVerificationState);
  const answer = {
    verificationId,
    family: 'scheme' as const,
    outcome,
    score: 1,
    matchedName: holderName,
    reasons: [],
    completedAt,
  };
  const completion = await protectMatchedName(cipher, answer, holderAccountId);
  const [completed] = decideVerification({ type: 'CompleteVerification', completion }, state);
  if (completed?.type !== 'VerificationCompleted') throw new Error('no completion decided');
  return completed.data;
}

/**
 * Each run: a fresh in-memory database and the verification routes as the gateway composes them.
 * With `matching`, a stand-in for the matching service answers each recorded request at once;
 * without it, no answer ever comes. With `decidedAtRecording` too, the stand-in is the recorder's own
 * decision instead: record() resolves with the end, and nothing is notified.
 */
function verificationsSpec(
  options: {
    matching?: Outcome | 'cannot decide';
    decidedAtRecording?: boolean;
    deadlineMs?: number;
    as?: Principal;
    directory?: boolean;
  } = {},
) {
  return httpSpec({
    setup: async () => {
      const { sql, store, cipher } = await freshGatewayStore();
      await migrateVerificationsReadModel(sql, SCHEMA);
      const waiters = new CompletionWaiters({
        lookup: (ids) => findEndedVerifications(sql, SCHEMA, ids),
      });
      const recordRequest = verificationRecorder({
        store,
        cipher,
        inline: (requests) => pendingVerificationsWrite(SCHEMA, requests),
      });
      const { matching } = options;
      const answered: RecordVerification = async (request) => {
        await recordRequest(request);
        // Decided elsewhere: record() gives no end, the caller waits for the notification.
        if (matching === undefined) return undefined;
        const id = request.data.verificationId;
        const end: VerificationEnd =
          matching === 'cannot decide'
            ? {
                type: 'VerificationFailed',
                data: {
                  verificationId: id,
                  family: 'scheme',
                  reason: 'ERROR',
                  failedAt: completedAt,
                },
              }
            : {
                type: 'VerificationCompleted',
                data: await matchingAnswer(store, cipher, id, matching),
              };
        await sql.transaction((tx) => recordVerificationEnds(tx, SCHEMA, [end]));
        if (options.decidedAtRecording) {
          // A check decided at recording has no waiter: its caller is answered with what record() gives.
          assert.equal(waiters.size, 0, 'a waiter was registered for a check decided at recording');
          return end;
        }
        // As the gateway's two completion consumers: the results read model, then the waiter.
        waiters.notify(end);
        return undefined;
      };
      const logger = createLogger({ service: 'spec', level: 'silent' });
      const directory = new SchemeDirectory({ store, environment: 'test', logger });
      if (options.directory)
        await directory.load({ snapshot: directorySnapshot, loadedBy: 'spec', now: fixedDate });
      const routes = verificationRoutes({
        store,
        record: answered,
        ...(options.decidedAtRecording && { decidedAtRecording: true }),
        waiters,
        cipher,
        deadlineMs: options.deadlineMs ?? 2000,
        clock: () => fixedDate,
        newId: () => fixedUuid,
        ...(options.directory && {
          requesters: requesterCheck({ directory, ownBics: [BICS.partyAgent], logger }),
        }),
      });
      const app = appAs(options.as ?? principal, [routes.scheme, routes.others], BICS.partyAgent);
      const project = async (events: RecordedEvent[], tx: SqlExecutor) => {
        for (const { type, data } of events) {
          if (type === 'VerificationRequested') {
            const pending = pendingVerificationsWrite(SCHEMA, [
              parseVerificationRequested(type, data),
            ]);
            await tx.query(pending.text, pending.params);
          } else {
            await recordVerificationEnds(tx, SCHEMA, [parseVerificationEnd(type, data)]);
          }
        }
      };
      return { store, app, cipher, project, close: () => sql.close() };
    },
  });
}

/** The one VerificationRequested, its typed name encrypted: the plain name is stored nowhere. */
async function assertOneRequest(
  events: RecordedEvent[],
  cipher: FieldCipher,
  expected: VerificationRequestedData & { name: string },
): Promise<void> {
  assert.equal(events.length, 1);
  const [event] = events as [RecordedEvent];
  const { name: storedName = '', ...data } = parseVerificationRequested(event.type, event.data);
  const { name, ...expectedData } = expected;
  assert.equal(event.streamId, verificationStreamId(expected.verificationId));
  assert.deepEqual(data, expectedData);
  assert.ok(storedName.startsWith('pd1:'), `typed name ${storedName} is not encrypted`);
  assert.ok(!JSON.stringify(event.data).includes(name), 'the typed name is in the event');
  assert.equal(await cipher.decrypt(storedName), name);
}

const requestedAt = '2026-03-01T09:00:00.000Z';
const givenId = '1e2d3c4b-5a69-4788-97a6-b5c4d3e2f1a0';

const failedAt = '2026-03-01T09:20:00.000Z';

/** A request-result verification as the gateway stores it (names encrypted), maybe answered. */
function givenVerification(outcome?: Outcome | 'failed') {
  return async ({ cipher }: { cipher: FieldCipher }): Promise<GivenStream[]> => {
    const requested = await protectTypedName(cipher, {
      verificationId: givenId,
      family: 'request-result',
      iban,
      name: typedName,
      participant: principal.participantId,
      requestedAt,
    });
    const events: NewEvent[] = [{ type: 'VerificationRequested', data: requested }];
    if (outcome === 'failed') {
      const failure = { verificationId: givenId, family: 'request-result', reason: 'TIMEOUT' };
      events.push({ type: 'VerificationFailed', data: { ...failure, failedAt } });
    } else if (outcome !== undefined) {
      const answer = {
        verificationId: givenId,
        family: 'request-result' as const,
        outcome,
        score: 0.85,
        matchedName: holderName,
        reasons: ['NAME_SIMILAR'],
        completedAt,
      };
      const completed = await protectMatchedName(cipher, answer, holderAccountId);
      events.push({ type: 'VerificationCompleted', data: completed });
    }
    return [{ streamId: verificationStreamId(givenId), events }];
  };
}

type SchemeErrorBody = {
  error: { code: string; category: string; details?: { field?: string; reason?: string } };
};

const V5_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('verification routes (HTTP spec)', () => {
  it('given nothing, when a scheme request matches, then 200 MTCH + request event', async () => {
    await verificationsSpec({ matching: 'MTCH' })
      .given([])
      .when((request) => request.post('/vop/verify', schemeRequest(typedName)))
      .then({
        status: 200,
        headers: { 'X-Verification-ID': fixedUuid },
        body: { partyNameMatch: 'MTCH', matchedName: holderName },
        events: (events, { cipher }) =>
          assertOneRequest(events, cipher, {
            verificationId: fixedUuid,
            family: 'scheme',
            iban,
            name: typedName,
            requestingAgentBic: BICS.requestingAgent,
            partyAgentBic: BICS.partyAgent,
            participant: principal.participantId,
            requestedAt: fixedDate.toISOString(),
          }),
      });
  });

  it('given checks decided at recording, when a scheme request matches, then 200 MTCH from the end record() gives, no waiter registered', async () => {
    await verificationsSpec({ matching: 'MTCH', decidedAtRecording: true })
      .given([])
      .when((request) => request.post('/vop/verify', schemeRequest(typedName)))
      .then({
        status: 200,
        headers: { 'X-Verification-ID': fixedUuid },
        body: { partyNameMatch: 'MTCH', matchedName: holderName },
        // The stand-in records the request only; its end is in the read model.
        events: (events) => assert.equal(events.length, 1),
      });
  });

  it('given checks decided at recording, when one could not be decided, then 503 from the failure record() gives', async () => {
    await verificationsSpec({ matching: 'cannot decide', decidedAtRecording: true })
      .given([])
      .when((request) => request.post('/vop/verify', schemeRequest(typedName)))
      .then({
        status: 503,
        headers: { 'X-Verification-ID': fixedUuid },
        body: (body: SchemeErrorBody) => assert.equal(body.error.category, 'TECHNICAL_ERROR'),
        events: (events) => assert.equal(events.length, 1),
      });
  });

  it('given nothing, when /verify is posted, then 201 receipt, VerificationRequested', async () => {
    await verificationsSpec()
      .given([])
      .when((request) => request.post('/verify', { name: typedName, iban }))
      .then({
        status: 201,
        body: { request_id: fixedUuid, message: 'Verification request accepted' },
        events: (events, { cipher }) =>
          assertOneRequest(events, cipher, {
            verificationId: fixedUuid,
            family: 'request-result',
            iban,
            name: typedName,
            participant: principal.participantId,
            requestedAt: fixedDate.toISOString(),
          }),
      });
  });

  it('given a completed verification, when it is read, then 200 with its codes', async () => {
    await verificationsSpec()
      .given(givenVerification('CMTC'))
      .when((request) => request.get(`/verify/${givenId}`))
      .then({
        status: 200,
        body: (body: Record<string, unknown>) => {
          const { response_id: responseId, ...result } = body;
          assert.match(String(responseId), V5_UUID);
          assert.deepEqual(result, {
            request_id: givenId,
            name_match_code: 'PARTIAL',
            id_match_code: 'NOT_APPLICABLE',
            matched_name: holderName,
            reasons: ['NAME_SIMILAR'],
            response_timestamp: completedAt,
            created_at: requestedAt,
          });
        },
        events: [],
      });
  });

  it('given a verification that failed, when it is read, then 200 FAILED with the reason', async () => {
    await verificationsSpec()
      .given(givenVerification('failed'))
      .when((request) => request.get(`/verify/${givenId}`))
      .then({
        status: 200,
        body: {
          request_id: givenId,
          status: 'FAILED',
          reason: 'TIMEOUT',
          failed_at: failedAt,
          created_at: requestedAt,
        },
        events: [],
      });
  });

  it('given nothing, when matching cannot decide a scheme request, then 503 naming the request', async () => {
    await verificationsSpec({ matching: 'cannot decide' })
      .given([])
      .when((request) => request.post('/vop/verify', schemeRequest(typedName)))
      .then({
        status: 503,
        headers: { 'X-Verification-ID': fixedUuid },
        body: (body: SchemeErrorBody) => assert.equal(body.error.category, 'TECHNICAL_ERROR'),
        events: (events) => assert.equal(events.length, 1),
      });
  });

  it('given a requested verification, when it is read, then 202 with Retry-After', async () => {
    await verificationsSpec()
      .given(givenVerification())
      .when((request) => request.get(`/verify/${givenId}`))
      .then({
        status: 202,
        headers: { 'Retry-After': '1' },
        body: { request_id: givenId, status: 'PENDING' },
        events: [],
      });
  });

  it('given a verification another participant asked for, when it is read, then 404 as if unknown', async () => {
    const other: Principal = {
      ...principal,
      participantId: 'PSDFR-ACPR-999999',
      fingerprint: 'ef'.repeat(32),
    };
    await verificationsSpec({ as: other })
      .given(givenVerification('MTCH'))
      .when((request) => request.get(`/verify/${givenId}`))
      .then({
        status: 404,
        body: { error: 'NOT_FOUND', message: 'No verification with this request_id' },
        events: [],
      });
  });

  it("given a verification a participant asked for, when the bank's admin reads it, then 200", async () => {
    const admin: Principal = { ...principal, participantId: 'BANK-ADMIN', admin: true };
    await verificationsSpec({ as: admin })
      .given(givenVerification('MTCH'))
      .when((request) => request.get(`/api/verify/vrf_${givenId}`))
      .then({
        status: 200,
        body: (body: { request_id?: string; name_match_code?: string }) => {
          assert.equal(body.request_id, givenId);
          assert.equal(body.name_match_code, 'MATCH');
        },
        events: [],
      });
  });

  it('given nothing, when an unknown result is read, then 404 in the flat format', async () => {
    await verificationsSpec()
      .given([])
      .when((request) => request.get(`/verify/${givenId}`))
      .then({
        status: 404,
        body: { error: 'NOT_FOUND', message: 'No verification with this request_id' },
        events: [],
      });
  });

  it('given nothing, when party.name is missing, then 400 VOP_004 naming it', async () => {
    await verificationsSpec({ matching: 'MTCH' })
      .given([])
      .when((request) => request.post('/vop/verify', schemeRequest(undefined)))
      .then({
        status: 400,
        body: (body: SchemeErrorBody) => {
          assert.equal(body.error.code, 'VOP_004');
          assert.equal(body.error.category, 'VALIDATION_ERROR');
          assert.deepEqual(body.error.details, { field: 'party.name', reason: 'MISSING_FIELD' });
        },
        events: [],
      });
  });

  it('given nothing, when no answer comes in time, then 504 VOP_003 naming the kept request', async () => {
    await verificationsSpec({ deadlineMs: 50 })
      .given([])
      .when((request) => request.post('/vop/verify', schemeRequest(typedName)))
      .then({
        status: 504,
        headers: { 'Retry-After': '1', 'X-Verification-ID': fixedUuid },
        body: (body: SchemeErrorBody) => {
          assert.equal(body.error.code, 'VOP_003');
          assert.equal(body.error.category, 'TIMEOUT_ERROR');
        },
        events: (events) => {
          assert.deepEqual(
            events.map(({ streamId, type }) => ({ streamId, type })),
            [{ streamId: verificationStreamId(fixedUuid), type: 'VerificationRequested' }],
          );
        },
      });
  });

  const epcHeaders = {
    'X-Request-ID': '0b0b8a52-4f43-4b8e-9a55-6c1c1a3c9a01',
    'X-Request-Timestamp': '2026-03-02T11:14:59.500+01:00',
  };
  /** The directory was loaded in the setup, before the checkpoint: nothing new is appended. */
  const noNewEvents = (events: RecordedEvent[]) =>
    assert.deepEqual(
      events.map(({ type }) => type),
      [],
    );

  it('given an adherent requester, when the EPC path is asked, then 200 with the EPC rules and an epc request event', async () => {
    await verificationsSpec({ matching: 'CMTC', directory: true })
      .given([])
      .when((request) =>
        request.send('POST', '/vop/v1/payee-verifications', {
          body: schemeRequest(typedName),
          headers: epcHeaders,
        }),
      )
      .then({
        status: 200,
        headers: { 'X-Request-ID': epcHeaders['X-Request-ID'] },
        body: { partyNameMatch: 'CMTC', matchedName: holderName },
        events: (events) =>
          assert.deepEqual(
            events.map(({ type, data }) => [type, (data as { family?: string }).family]),
            [['VerificationRequested', 'epc']],
          ),
      });
  });

  it('given an adherent requester, when the partyAgent is not ours, then 200 NOAP and no verification', async () => {
    await verificationsSpec({ matching: 'MTCH', directory: true })
      .given([])
      .when((request) =>
        request.send('POST', '/vop/v1/payee-verifications', {
          body: {
            ...schemeRequest(typedName),
            partyAgent: { financialInstitutionId: { bicfi: 'BNPAFRPPXXX' } },
          },
          headers: epcHeaders,
        }),
      )
      .then({ status: 200, body: { partyNameMatch: 'NOAP' }, events: noNewEvents });
  });

  it('given a requester whose BIC is not its own, when it asks, then 401 CLIENT_INCONSISTENT and no verification', async () => {
    await verificationsSpec({ matching: 'MTCH', directory: true })
      .given([])
      .when((request) =>
        request.send('POST', '/vop/v1/payee-verifications', {
          body: {
            ...schemeRequest(typedName),
            requestingAgent: { financialInstitutionId: { bicfi: 'BYLADEMMXXX' } },
          },
          headers: epcHeaders,
        }),
      )
      .then({
        status: 401,
        body: (body: { code: string; type: string }) => {
          assert.equal(body.code, 'CLIENT_INCONSISTENT');
          assert.equal(body.type, 'urn:vop:epc:error:client-inconsistent');
        },
        events: noNewEvents,
      });
  });

  it('given a certificate of no participant, when it asks the seed path, then 401 VOP_002 CLIENT_INVALID', async () => {
    const stranger: Principal = { ...principal, organizationIdentifier: 'PSDDE-BAFIN-999999' };
    await verificationsSpec({ matching: 'MTCH', directory: true, as: stranger })
      .given([])
      .when((request) => request.post('/vop/verify', schemeRequest(typedName)))
      .then({
        status: 401,
        body: (body: SchemeErrorBody) => {
          assert.equal(body.error.code, 'VOP_002');
          assert.equal(body.error.details?.reason, 'CLIENT_INVALID');
        },
        events: noNewEvents,
      });
  });
});
