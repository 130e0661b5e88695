import { pino, type DestinationStream, type Logger } from 'pino';
import { serializeError } from './error-serializer.js';
import { activeTraceIds } from './tracing.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  service: string;
  /** pino level name: fatal, error, warn, info, debug, trace or silent. Defaults to info. */
  level?: string;
  /** Where JSON lines go; defaults to pino's synchronous stdout. Tests pass a stream to read the lines back. */
  destination?: DestinationStream;
}

export const REDACTED = '[REDACTED]';

/**
 * Log paths that commonly hold personal data (payee names, account identifiers) or credentials. Code should log
 * masked values (maskName, maskIban) under other keys; this list is the safety net for objects logged whole.
 */
export const redactedLogPaths: readonly string[] = [
  'name',
  'iban',
  'accountName',
  'accountNumber',
  'matchedName',
  'suggestedName',
  'alternateNames',
  'account_name',
  'account_number',
  'matched_name',
  '*.name',
  '*.iban',
  '*.accountName',
  '*.accountNumber',
  '*.matchedName',
  '*.suggestedName',
  '*.alternateNames',
  'party.name',
  'partyAccount.iban',
  '*.party.name',
  '*.partyAccount.iban',
  'body',
  'req.body',
  'res.body',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
];

/** A pino logger writing one JSON object per line, with the service name and personal data redacted. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service },
      redact: { paths: [...redactedLogPaths], censor: REDACTED },
      timestamp: pino.stdTimeFunctions.isoTime,
      // The request's or event's trace, so a log line leads to its spans and back.
      mixin: activeTraceIds,
      // Errors carry what they were given (a database's detail, a parser's input): see error-serializer.ts.
      serializers: { err: serializeError, error: serializeError },
      formatters: {
        // Level names rather than numbers read better in log search and need no lookup table.
        level: (label) => ({ level: label }),
      },
    },
    options.destination,
  );
}
