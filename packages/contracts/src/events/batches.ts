import { z } from '../zod.js';

/**
 * A batch's integration event, published by services/batch when every entry has an answer, for the
 * webhook dispatcher (`batch.completed`) and analytics. Keyed by batch id on `Topics.batchEvents`.
 * No entry content: counts only (data minimisation).
 */
export const BatchCompleted = z.object({
  type: z.literal('BatchCompleted'),
  data: z.object({
    batchId: z.string(),
    /** The participant that submitted the batch; a webhook registration sees only its own. */
    participant: z.string(),
    status: z.enum(['COMPLETED', 'FAILED']),
    total: z.number().int().nonnegative(),
    successful: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    submittedAt: z.iso.datetime(),
    completedAt: z.iso.datetime(),
  }),
});
export type BatchCompletedData = z.infer<typeof BatchCompleted>['data'];
export const BATCH_EVENT_VERSION = 1;

/** The one parser of batch-completed data, from the type and data of a stored or delivered event. */
export function parseBatchCompleted(type: string, data: unknown): BatchCompletedData {
  return BatchCompleted.parse({ type, data }).data;
}
