import { randomUUID } from 'node:crypto';
import type { FlatError, NestedError, SchemeError, z } from '@vop/contracts';
import type { ErrorFormat } from './route-families.js';

/**
 * One failure, described once; `toBody` renders it in the path's format. The codes are the format-2
 * codes (INVALID_IBAN, MISSING_FIELD, …); nested and scheme forms derive theirs from them.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: {
      field?: string;
      reason?: string;
      retryAfterSeconds?: number;
      action?: string;
    } = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type SchemeCode = z.infer<typeof SchemeError>['error']['code'];

const SCHEME_CODES: Record<number, { code: SchemeCode; category: string }> = {
  400: { code: 'VOP_004', category: 'VALIDATION_ERROR' },
  401: { code: 'VOP_002', category: 'SECURITY_ERROR' },
  403: { code: 'VOP_002', category: 'SECURITY_ERROR' },
  404: { code: 'VOP_005', category: 'BUSINESS_ERROR' },
  405: { code: 'VOP_004', category: 'VALIDATION_ERROR' },
  409: { code: 'VOP_005', category: 'BUSINESS_ERROR' },
  413: { code: 'VOP_004', category: 'VALIDATION_ERROR' },
  415: { code: 'VOP_004', category: 'VALIDATION_ERROR' },
  429: { code: 'VOP_005', category: 'BUSINESS_ERROR' },
  503: { code: 'VOP_001', category: 'TECHNICAL_ERROR' },
  504: { code: 'VOP_003', category: 'TIMEOUT_ERROR' },
};

/** Nested format has a smaller code list; validation failures of any kind are INVALID_REQUEST there. */
function nestedCode(error: ApiError): string {
  if (error.status === 400) return 'INVALID_REQUEST';
  if (error.status === 500) return 'INTERNAL_ERROR';
  return error.code;
}

export interface ErrorContext {
  format: ErrorFormat;
  respondingPsp: string;
  requestId: string | undefined;
}

export type ErrorBody =
  z.infer<typeof NestedError> | z.infer<typeof FlatError> | z.infer<typeof SchemeError>;

export function toErrorBody(error: ApiError, context: ErrorContext): ErrorBody {
  const { field, reason, retryAfterSeconds, action } = error.extra;
  switch (context.format) {
    case 'flat':
      return {
        error: error.code,
        message: error.message,
        ...(field !== undefined && { field }),
        ...(retryAfterSeconds !== undefined && { retry_after: retryAfterSeconds }),
        ...(action !== undefined && { action }),
      };
    case 'nested':
      return {
        error: {
          code: nestedCode(error),
          message: error.message,
          ...((field !== undefined || reason !== undefined || retryAfterSeconds !== undefined) && {
            details: {
              ...(field !== undefined && { field }),
              ...(reason !== undefined && { reason }),
              ...(retryAfterSeconds !== undefined && { retry_after: retryAfterSeconds }),
            },
          }),
        },
      };
    case 'scheme': {
      const mapped = SCHEME_CODES[error.status] ?? { code: 'VOP_001', category: 'TECHNICAL_ERROR' };
      return {
        errorReference: randomUUID(),
        timestamp: new Date().toISOString(),
        error: {
          code: mapped.code,
          category: mapped.category,
          message: error.message,
          ...((field !== undefined || reason !== undefined) && {
            details: { ...(field !== undefined && { field }), reason: reason ?? error.code },
          }),
        },
        metadata: {
          respondingPSP: context.respondingPsp,
          originalRequest: context.requestId ?? '',
        },
      };
    }
  }
}

export const errors = {
  unauthorized: (message = 'A valid credential is required') =>
    new ApiError(401, 'UNAUTHORIZED', message),
  accessDenied: (message = 'This credential may not use this endpoint') =>
    new ApiError(403, 'ACCESS_DENIED', message),
  notFound: (code: string, message: string) => new ApiError(404, code, message),
  conflict: (code: string, message: string) => new ApiError(409, code, message),
  methodNotAllowed: (method: string, allowed: string[]) =>
    new ApiError(
      405,
      'METHOD_NOT_ALLOWED',
      `${method} is not served here; use ${allowed.join(', ')}`,
    ),
  timeout: (message: string) => new ApiError(504, 'TIMEOUT', message, { retryAfterSeconds: 1 }),
  unavailable: (message: string, retryAfterSeconds = 1) =>
    new ApiError(503, 'SERVICE_UNAVAILABLE', message, { retryAfterSeconds }),
  internal: () => new ApiError(500, 'INTERNAL_ERROR', 'An internal error occurred'),
  unsupportedMediaType: () =>
    new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json', {
      field: 'content-type',
      reason: 'UNSUPPORTED_MEDIA_TYPE',
    }),
  tooLarge: () =>
    new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body too large', {
      field: 'body',
      reason: 'TOO_LARGE',
    }),
  malformedJson: () =>
    new ApiError(400, 'INVALID_JSON', 'Request body is not valid JSON', {
      field: 'body',
      reason: 'MALFORMED_JSON',
    }),
  unreadable: () =>
    new ApiError(400, 'INVALID_REQUEST', 'The request could not be read', {
      field: 'body',
      reason: 'UNREADABLE',
    }),
};
