import { EpcRequestId, EpcRequestTimestamp } from '@vop/contracts';
import { ApiError } from '@vop/http';

/** How far X-Request-Timestamp may be from our clock, either way (clock skew between PSPs). */
export const EPC_TIMESTAMP_TOLERANCE_MS = 5 * 60 * 1000;

const formatError = (header: string, message: string) =>
  new ApiError(400, 'INVALID_REQUEST', message, {
    field: header,
    reason: 'INVALID_HEADER',
    epcCode: 'FORMAT_ERROR',
  });

const timestampInvalid = (message: string) =>
  new ApiError(400, 'INVALID_REQUEST', message, {
    field: 'X-Request-Timestamp',
    reason: 'TIMESTAMP_INVALID',
    epcCode: 'TIMESTAMP_INVALID',
  });

/**
 * The EPC request headers: X-Request-ID a UUID (FORMAT_ERROR otherwise), X-Request-Timestamp an ISO
 * 8601 date-time with milliseconds, UTC or with an offset, within the tolerance of our clock
 * (TIMESTAMP_INVALID otherwise, a missing or malformed one too, as the EPC FAQ recommends).
 */
export function epcHeaderRefusal(
  header: (name: string) => string | undefined,
  now: Date,
): ApiError | undefined {
  const requestId = header('x-request-id');
  if (requestId === undefined || requestId.length === 0)
    return formatError('X-Request-ID', 'Missing required header: X-Request-ID');
  if (!EpcRequestId.safeParse(requestId).success)
    return formatError('X-Request-ID', 'X-Request-ID must be a UUID');
  const timestamp = header('x-request-timestamp');
  if (timestamp === undefined || timestamp.length === 0)
    return timestampInvalid('Missing required header: X-Request-Timestamp');
  if (!EpcRequestTimestamp.safeParse(timestamp).success)
    return timestampInvalid(
      'X-Request-Timestamp must be ISO 8601 with milliseconds, UTC or with an offset',
    );
  const skew = Math.abs(Date.parse(timestamp) - now.getTime());
  if (skew > EPC_TIMESTAMP_TOLERANCE_MS)
    return timestampInvalid('X-Request-Timestamp is too far from the responder clock');
  return undefined;
}
