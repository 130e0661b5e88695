import { z } from '../zod.js';
import { AccountSnapshot } from './accounts.js';
import { BatchCompleted } from './batches.js';
import {
  VerificationCompleted,
  VerificationFailed,
  VerificationRequested,
} from './verifications.js';

export const Topics = {
  accountEvents: 'vop.account-events.v1',
  verificationRequested: 'vop.verification-requested.v1',
  /** Batch entries (services/batch): their own topic, consumed by matching beside single checks at a lower share. */
  verificationRequestedBatch: 'vop.verification-requested.batch.v1',
  /**
   * Requests left to the requesting side (marked `routing`: single checks of request/result, batch
   * entries whose account is not held by the batch service): the gateway asks the payee's bank.
   */
  verificationRequestedRouting: 'vop.verification-requested.routing.v1',
  verificationCompleted: 'vop.verification-completed.v1',
  /**
   * The ends of batch entries (completions and failures of verifications that carry a batch): their own
   * topic, so the single-check readers (the gateway's results and waiters) never decode them.
   */
  verificationCompletedBatch: 'vop.verification-completed.batch.v1',
  /**
   * The `.decided` twins: requests decided where they were recorded (marked `decidedAtRecording`), and
   * their ends. Nobody has to decide or answer them again, so matching, the gateway's results group and
   * the batch progress consumer never fetch them; analytics and the webhook dispatcher read both twins.
   */
  verificationRequestedDecided: 'vop.verification-requested.decided.v1',
  verificationRequestedBatchDecided: 'vop.verification-requested.batch.decided.v1',
  verificationCompletedDecided: 'vop.verification-completed.decided.v1',
  verificationCompletedBatchDecided: 'vop.verification-completed.batch.decided.v1',
  /** The bank's core-banking feed (packages/contracts/src/events/core-banking.ts), keyed by IBAN. */
  coreBankingAccountChanges: 'vop.core-banking.account-changes.v1',
  coreBankingDeadLetters: 'vop.core-banking.account-changes.dlq.v1',
  /** Batch lifecycle events for other services (batch.completed), keyed by batch id. */
  batchEvents: 'vop.batch-events.v1',
  /** Webhook deliveries that used their last attempt (services/webhook-dispatcher), by registration. */
  webhookDeadLetters: 'vop.webhook-dead-letters.v1',
} as const;
export type TopicName = (typeof Topics)[keyof typeof Topics];
export type TopicNames = { [K in keyof typeof Topics]: string };

/**
 * Topic names under a deployment's namespace prefix, so several deployments (or test runs) can share one
 * Kafka cluster without reading each other's events.
 */
export function topicNames(namespace = ''): TopicNames {
  return Object.fromEntries(
    Object.entries(Topics).map(([key, name]) => [key, `${namespace}${name}`]),
  ) as TopicNames;
}

/** Same partition count on the IBAN-keyed topics, so a key lands on the same partition index in both. */
export const TOPIC_PARTITIONS = 8;

export interface TopicRoute {
  topic: string;
  key: string;
}

/**
 * What each route reads of an event, picked from its schema: a relay routes every event it publishes,
 * and validating the whole event there (it was validated when it was decided) cost more than the rest
 * of routing (bench/RESULTS.md §5).
 */
const accountRouting = z.object({ data: AccountSnapshot.pick({ iban: true }) });
const requestRouting = z.object({
  data: VerificationRequested.shape.data.pick({
    iban: true,
    batch: true,
    decidedAtRecording: true,
    routing: true,
  }),
});
const endFields = { verificationId: true, batch: true, decidedAtRecording: true } as const;
const completedRouting = z.object({ data: VerificationCompleted.shape.data.pick(endFields) });
const failedRouting = z.object({ data: VerificationFailed.shape.data.pick(endFields) });
const batchRouting = z.object({ data: BatchCompleted.shape.data.pick({ batchId: true }) });

/**
 * Where a stored event is published, and under which key: account events and verification requests by
 * IBAN (a matching instance holds the accounts of its partitions), completions by verification id.
 * Events that stay inside their service route nowhere (null).
 */
export function routeIntegrationEvent(
  topics: TopicNames,
  event: { type: string; data: unknown },
): TopicRoute | null {
  switch (event.type) {
    case 'AccountOpened':
    case 'AccountUpdated':
    case 'AccountDeleted':
      return { topic: topics.accountEvents, key: accountRouting.parse(event).data.iban };
    case 'VerificationRequested': {
      // Batch entries go to their own topic (same IBAN key and partition count), so single checks never queue behind them.
      const { iban, batch, decidedAtRecording, routing } = requestRouting.parse(event).data;
      if (routing !== undefined && decidedAtRecording === undefined)
        return { topic: topics.verificationRequestedRouting, key: iban };
      return { topic: requestTopic(topics, batch !== undefined, decidedAtRecording), key: iban };
    }
    // Failures share the completions' topic and key: one ordered end per verification.
    case 'VerificationCompleted':
    case 'VerificationFailed': {
      const ends = event.type === 'VerificationCompleted' ? completedRouting : failedRouting;
      const { verificationId, batch, decidedAtRecording } = ends.parse(event).data;
      return {
        topic: endTopic(topics, batch !== undefined, decidedAtRecording),
        key: verificationId,
      };
    }
    case 'BatchCompleted':
      return { topic: topics.batchEvents, key: batchRouting.parse(event).data.batchId };
    default:
      return null;
  }
}

/** A request's topic: batch entries apart from single checks, and each with its `.decided` twin. */
function requestTopic(topics: TopicNames, batch: boolean, decided: true | undefined): string {
  if (batch)
    return decided ? topics.verificationRequestedBatchDecided : topics.verificationRequestedBatch;
  return decided ? topics.verificationRequestedDecided : topics.verificationRequested;
}

/** An end's topic: where its request's twin is (a verification decided at recording has one end). */
function endTopic(topics: TopicNames, batch: boolean, decided: true | undefined): string {
  if (batch)
    return decided ? topics.verificationCompletedBatchDecided : topics.verificationCompletedBatch;
  return decided ? topics.verificationCompletedDecided : topics.verificationCompleted;
}
