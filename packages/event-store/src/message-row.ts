import type { RecordedEvent } from './types.js';

/** A messages row as selected by the store: int8 and xid8 are cast to text, since PGlite turns int8 into a lossy number. */
export interface MessageRow {
  global_position: string;
  transaction_id: string;
  stream_id: string;
  stream_position: number;
  event_id: string;
  type: string;
  data: unknown;
  metadata: Record<string, string> | null;
  occurred_at: Date | string;
}

export const MESSAGE_COLUMNS = `global_position::text AS global_position, transaction_id::text AS transaction_id,
  stream_id, stream_position, event_id::text AS event_id, type, data, metadata, occurred_at`;

export function toRecordedEvent(row: MessageRow): RecordedEvent {
  return {
    eventId: row.event_id,
    streamId: row.stream_id,
    streamPosition: Number(row.stream_position),
    globalPosition: BigInt(row.global_position),
    transactionId: row.transaction_id,
    type: row.type,
    data: row.data,
    metadata: row.metadata ?? {},
    occurredAt: row.occurred_at instanceof Date ? row.occurred_at : new Date(row.occurred_at),
  };
}
