import type { ExpectedVersion } from './types.js';

/**
 * The stream was not at the expected version when appending (someone else appended first).
 * The stream id is kept out of the message because ids may carry personal data (e.g. an IBAN) and
 * messages end up in logs; read it from `streamId`.
 */
export class ConcurrencyError extends Error {
  override readonly name = 'ConcurrencyError';

  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    /** The stream's version when the conflict was seen (a lower bound when another transaction raced ours). */
    readonly actual: number,
  ) {
    super(
      `Concurrency conflict: expected the stream at version ${String(expected)}, but it is at version ${actual}`,
    );
  }
}
