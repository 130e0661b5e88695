import type { IncomingMessage } from '@vop/messaging';
import type { Logger } from '@vop/observability';

/**
 * Logs a consumer's failed delivery (it will be redelivered): where it stands and why, never the payload,
 * which may hold names and IBANs.
 */
export function logHandlerError(logger: Logger, consumer: string) {
  return (error: unknown, message: IncomingMessage, attempt: number): void => {
    const failure =
      error instanceof Error
        ? { type: error.name, message: error.message, code: (error as { code?: unknown }).code }
        : { type: typeof error };
    logger.warn(
      {
        consumer,
        topic: message.topic,
        partition: message.partition,
        offset: message.offset,
        attempt,
        failure,
      },
      'consumer handler failed; redelivering',
    );
  };
}
