import { randomUUID } from 'node:crypto';
import {
  epcErrorType,
  type EpcError,
  type EpcErrorCode,
  type EpcErrorStatus,
  type FlatError,
  type NestedError,
  type SchemeError,
  type z,
} from '@vop/contracts';
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
      /** Advice the caller can act on (nested details.suggestion: TEST_EXECUTION_FAILED). */
      suggestion?: string;
      /** The EPC MessageCode when the status alone does not say it (CLIENT_INCONSISTENT, TIMESTAMP_INVALID). */
      epcCode?: EpcErrorCode;
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

/**
 * The EPC API answers only 400, 401 and 500 (no 403): request faults are 400 FORMAT_ERROR, credential
 * refusals 401 CLIENT_INVALID, and everything on our side (429, 503, 504 included) 500. The list of
 * codes has none for a 500; the body then says FORMAT_ERROR, as the type is mandatory, and the status
 * and title tell the caller the fault is ours.
 */
export function epcStatusOf(error: ApiError): EpcErrorStatus {
  if (error.status === 401 || error.status === 403) return 401;
  if (error.status >= 400 && error.status < 500 && error.status !== 429) return 400;
  return 500;
}

function epcCodeOf(error: ApiError, status: EpcErrorStatus): EpcErrorCode {
  if (error.extra.epcCode !== undefined) return error.extra.epcCode;
  return status === 401 ? 'CLIENT_INVALID' : 'FORMAT_ERROR';
}

const EPC_TITLES: Record<EpcErrorStatus, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  500: 'Internal Server Error',
};

/** The HTTP status an error answers with in a format (the EPC format narrows it). */
export function statusIn(format: ErrorFormat, error: ApiError): number {
  return format === 'epc' ? epcStatusOf(error) : error.status;
}

export interface ErrorContext {
  format: ErrorFormat;
  respondingPsp: string;
  requestId: string | undefined;
}

export type ErrorBody =
  z.infer<typeof NestedError> | z.infer<typeof FlatError> | z.infer<typeof SchemeError> | EpcError;

export function toErrorBody(error: ApiError, context: ErrorContext): ErrorBody {
  const { field, reason, retryAfterSeconds, action, suggestion } = error.extra;
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
          ...((field !== undefined ||
            reason !== undefined ||
            retryAfterSeconds !== undefined ||
            suggestion !== undefined) && {
            details: {
              ...(field !== undefined && { field }),
              ...(reason !== undefined && { reason }),
              ...(retryAfterSeconds !== undefined && { retry_after: retryAfterSeconds }),
              ...(suggestion !== undefined && { suggestion }),
            },
          }),
        },
      };
    case 'epc': {
      const status = epcStatusOf(error);
      const code = epcCodeOf(error, status);
      const detail =
        status === 500
          ? error.message
          : field !== undefined
            ? `${error.message} (${reason ?? error.code})`
            : error.message;
      return { type: epcErrorType(code), code, title: EPC_TITLES[status], status, detail };
    }
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
