import { AccountEvent } from './events/accounts.js';
import { BatchCompleted } from './events/batches.js';
import { CoreBankingAccountChange, CoreBankingDeadLetter } from './events/core-banking.js';
import { IntegrationEnvelope } from './events/envelope.js';
import { VerificationEvent } from './events/verifications.js';
import { WebhookDeliveryDeadLettered } from './events/webhooks.js';
import { z } from './zod.js';

/** JSON Schemas of the integration events, generated from the zod contracts (for registries and docs). */
export function buildEventJsonSchemas(): Record<string, unknown> {
  return {
    IntegrationEnvelope: z.toJSONSchema(IntegrationEnvelope, { unrepresentable: 'any' }),
    AccountEvent: z.toJSONSchema(AccountEvent, { unrepresentable: 'any' }),
    VerificationEvent: z.toJSONSchema(VerificationEvent, { unrepresentable: 'any' }),
    CoreBankingAccountChange: z.toJSONSchema(CoreBankingAccountChange, { unrepresentable: 'any' }),
    CoreBankingDeadLetter: z.toJSONSchema(CoreBankingDeadLetter, { unrepresentable: 'any' }),
    BatchCompleted: z.toJSONSchema(BatchCompleted, { unrepresentable: 'any' }),
    WebhookDeliveryDeadLettered: z.toJSONSchema(WebhookDeliveryDeadLettered, {
      unrepresentable: 'any',
    }),
  };
}

/**
 * The JSON Schema of what every topic carries as a message value: the integration envelope (its `data`
 * is the event's own contract, checked by the consumer's zod parser). Draft 7, the draft the
 * Confluent-compatible registries and the schema-registry client's validator both read.
 */
export function integrationEnvelopeJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(IntegrationEnvelope, { target: 'draft-07', unrepresentable: 'any' });
}
