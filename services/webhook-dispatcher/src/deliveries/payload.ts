import {
  parseBatchCompleted,
  parseVerificationCompleted,
  parseVerificationFailed,
  type IntegrationEnvelope,
  type WebhookEventName,
  type WebhookPayload,
} from '@vop/contracts';

/** What one integration event means for webhooks: whose it is, which event name, what is sent. */
export interface WebhookNotice {
  participant: string;
  event: WebhookEventName;
  payload: WebhookPayload;
  /**
   * The verification a success or failure ends, when it may end twice: only its first end is sent
   * (first-end.ts). Absent for an end decided where its request was recorded: that verification has
   * this one end (packages/contracts/src/events/topics.ts), and its notice is repeat-safe without it.
   */
  endsVerification?: string;
}

/**
 * Pure: the webhook an integration event produces, or undefined (another type, or no participant
 * to scope it to). Only identifiers, outcomes and counts are copied: never names or IBANs.
 * Every completion has an outcome (NOAP included), so it is `verification.success`; a verification
 * that could not be completed (VerificationFailed) is `verification.failure` with its reason.
 */
export function webhookNoticeFor(envelope: IntegrationEnvelope): WebhookNotice | undefined {
  switch (envelope.type) {
    case 'VerificationCompleted': {
      const completed = parseVerificationCompleted(envelope.type, envelope.data);
      if (completed.participant === undefined) return undefined;
      return {
        participant: completed.participant,
        ...mayEndTwice(completed),
        event: 'verification.success',
        payload: {
          type: 'verification.success',
          timestamp: completed.completedAt,
          data: {
            request_id: completed.verificationId,
            family: completed.family,
            outcome: completed.outcome,
            ...(completed.batch && {
              batch_id: completed.batch.batchId,
              entry_id: completed.batch.entryId,
            }),
            completed_at: completed.completedAt,
          },
        },
      };
    }
    case 'VerificationFailed': {
      const failed = parseVerificationFailed(envelope.type, envelope.data);
      if (failed.participant === undefined) return undefined;
      return {
        participant: failed.participant,
        ...mayEndTwice(failed),
        event: 'verification.failure',
        payload: {
          type: 'verification.failure',
          timestamp: failed.failedAt,
          data: {
            request_id: failed.verificationId,
            family: failed.family,
            reason: failed.reason,
            ...(failed.batch && { batch_id: failed.batch.batchId, entry_id: failed.batch.entryId }),
            completed_at: failed.failedAt,
          },
        },
      };
    }
    case 'BatchCompleted': {
      const batch = parseBatchCompleted(envelope.type, envelope.data);
      return {
        participant: batch.participant,
        event: 'batch.completed',
        payload: {
          type: 'batch.completed',
          timestamp: batch.completedAt,
          data: {
            batch_id: batch.batchId,
            status: batch.status,
            total: batch.total,
            successful: batch.successful,
            failed: batch.failed,
            submitted_at: batch.submittedAt,
            completed_at: batch.completedAt,
          },
        },
      };
    }
    default:
      return undefined;
  }
}

/** An end not decided at recording can meet another (a TIMEOUT failure and matching's late answer). */
const mayEndTwice = (end: {
  verificationId: string;
  decidedAtRecording?: true | undefined;
}): Pick<WebhookNotice, 'endsVerification'> =>
  end.decidedAtRecording === true ? {} : { endsVerification: end.verificationId };
