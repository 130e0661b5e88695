import { Readable } from 'node:stream';
import { germanIban } from '@vop/testing';

/** Account numbers of the generated records start here (far from the other benchmarks' accounts). */
const ACCOUNT_BASE = 3_000_000;
const LINES_PER_CHUNK = 1_000;

export const recordIban = (index: number): string => germanIban(ACCOUNT_BASE + index);

/** A mix like a bank's book: persons, some joint, and organisations with a legal form and an LEI. */
export function accountRecord(index: number, changed = false): Record<string, unknown> {
  const iban = recordIban(index);
  if (changed) return { ...accountRecord(index), name: changedName(index) };
  if (index % 5 === 4)
    return {
      iban,
      name: `Firma ${index} Handel GmbH`,
      holderType: 'organisation',
      identifiers: { others: [{ scheme: 'HRB', id: String(100_000 + index) }] },
    };
  return {
    iban,
    name: recordName(index),
    holderType: 'person',
    ...(index % 10 === 3 && { alternateNames: [`Partner ${index} Nilsson`] }),
  };
}

export const recordName = (index: number): string =>
  index % 5 === 4 ? `Firma ${index} Handel GmbH` : `Holder ${index} Nilsson`;

/** The name of a record in the nightly file's changed share (`changedEvery`). */
export const changedName = (index: number): string => `${recordName(index)} Berg`;

/**
 * NDJSON of records [from, to), generated as the reader asks for them: a million records are never
 * held in memory, and the upload's backpressure paces the generator. With `changedEvery` n, every
 * n-th record (index 0, n, 2n, …) has another name (changedName): the nightly file's changed share.
 */
export function accountRecordLines(from: number, to: number, changedEvery = 0): Readable {
  return Readable.from(
    (function* lines() {
      for (let start = from; start < to; start += LINES_PER_CHUNK) {
        const end = Math.min(to, start + LINES_PER_CHUNK);
        let chunk = '';
        for (let index = start; index < end; index++)
          chunk += `${JSON.stringify(accountRecord(index, changedEvery > 0 && index % changedEvery === 0))}\n`;
        yield chunk;
      }
    })(),
    { objectMode: false },
  );
}
