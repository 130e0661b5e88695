import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { topicNames } from '@vop/contracts';
import { createPgliteClient, type SqlClient } from '@vop/event-store';
import { createInProcessBus, type InProcessBus } from '@vop/messaging';
import { createNameMatcher } from '@vop/name-matching';
import { createLogger } from '@vop/observability';
import { toOutgoingMessage } from '@vop/outbox';
import { germanIban } from '@vop/testing';
import { createMatchingService, type MatchingService } from './service.js';

const topics = topicNames();
const IBAN = germanIban(4_711);
const ACCOUNT_ID = '5d2f7a3e-9c41-4b8e-8f0a-2a6b1c9d7e01';

/** A stored event as a relay would publish it. */
function published(
  type: string,
  data: Record<string, unknown>,
  streamId: string,
  streamPosition = 1,
) {
  return toOutgoingMessage(
    {
      eventId: randomUUID(),
      streamId,
      streamPosition,
      globalPosition: 1n,
      transactionId: '1',
      type,
      data,
      metadata: {},
      occurredAt: new Date('2026-03-02T10:00:00.000Z'),
    },
    IBAN,
  );
}

/** A VerificationRequested as a recorder's relay publishes it, with the fields that tell it apart. */
function requestMessage(fields: Record<string, unknown>) {
  const verificationId = randomUUID();
  return {
    verificationId,
    message: published(
      'VerificationRequested',
      {
        verificationId,
        iban: IBAN,
        name: 'Erika Mustermann',
        participant: 'P1',
        requestedAt: '2026-03-02T10:00:00.000Z',
        ...fields,
      },
      `verification-${verificationId}`,
    ),
  };
}

const batchEntryRequest = (entryId: string) =>
  requestMessage({ family: 'batch', batch: { batchId: 'b-1', entryId } });

const singleCheckRequest = (decidedAtRecording: boolean) =>
  requestMessage({ family: 'scheme', ...(decidedAtRecording && { decidedAtRecording: true }) });

describe('matching service: account rows kept in memory by several processes of one projection', () => {
  let sql: SqlClient;
  let bus: InProcessBus;
  const services: MatchingService[] = [];

  before(async () => {
    sql = await createPgliteClient({});
    bus = createInProcessBus({ redeliveryDelayMs: 10 });
    const logger = createLogger({ service: 'matching-test', level: 'silent' });
    // One process applies the projection (single checks); the other only reads it (batch entries).
    for (const role of ['single', 'batch'] as const) {
      const service = createMatchingService({
        sql,
        bus,
        logger,
        matcher: createNameMatcher(),
        instanceId: role,
        roles: new Set([role]),
      });
      await service.start();
      services.push(service);
    }
  });

  after(async () => {
    for (const service of services) await service.stop();
    await bus.close();
    await sql.close();
  });

  async function decide(entryId: string): Promise<string | undefined> {
    const { verificationId, message } = batchEntryRequest(entryId);
    await bus.publish(topics.verificationRequestedBatch, [message]);
    await bus.settled();
    const { rows } = await sql.query<{ outcome: string }>(
      `SELECT data->>'outcome' AS outcome FROM matching_batch.messages WHERE stream_id = $1`,
      [`verification-${verificationId}`],
    );
    return rows[0]?.outcome;
  }

  it('the reading process hears of a change the applying process made, though it kept the row', async () => {
    const snapshot = {
      accountId: ACCOUNT_ID,
      iban: IBAN,
      name: 'Erika Mustermann',
      holderType: 'person',
      alternateNames: [],
      status: 'active',
    };
    await bus.publish(topics.accountEvents, [
      published(
        'AccountOpened',
        { ...snapshot, createdAt: '2026-03-01T00:00:00.000Z' },
        `account-${ACCOUNT_ID}`,
      ),
    ]);
    await bus.settled();
    assert.equal(await decide('e-1'), 'MTCH');
    assert.equal(await decide('e-2'), 'MTCH', 'the row is read from memory now');

    await bus.publish(topics.accountEvents, [
      published(
        'AccountUpdated',
        {
          ...snapshot,
          name: 'Jonas Lindqvist',
          previousIban: IBAN,
          updatedAt: '2026-03-02T09:00:00.000Z',
        },
        `account-${ACCOUNT_ID}`,
        2,
      ),
    ]);
    await bus.settled();
    assert.equal(await decide('e-3'), 'NMTC');
  });

  it('decides a single check that came undecided, and leaves alone one the gateway decided where it recorded it', async () => {
    const undecided = singleCheckRequest(false);
    const decided = singleCheckRequest(true);
    await bus.publish(topics.verificationRequested, [decided.message, undecided.message]);
    await bus.settled();
    const ends = async (verificationId: string) =>
      (
        await sql.query<{ type: string }>(
          `SELECT type FROM matching.messages WHERE stream_id = $1`,
          [`verification-${verificationId}`],
        )
      ).rows.map((row) => row.type);
    assert.deepEqual(await ends(undecided.verificationId), ['VerificationCompleted']);
    assert.deepEqual(await ends(decided.verificationId), []);
  });
});
