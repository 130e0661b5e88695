import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import {
  AccountNumberEntry,
  BatchEntry,
  MAX_BATCH_ENTRIES,
  VisibleText,
  type z,
} from '@vop/contracts';
import { ApiError, hasUnsafeCharacter } from '@vop/http';
import { tooManyEntries } from './upload.js';

/**
 * The first problem of an entry as a 400 naming the record: its index in the field, and its id
 * where it has one. Invalid IBANs refuse the whole submission (nothing half-accepted).
 */
function entryError(
  issue: z.core.$ZodIssue,
  arrayField: string,
  index: number,
  entryId: string | undefined,
): ApiError {
  const field = [`${arrayField}[${index}]`, ...issue.path.map(String)].join('.');
  const record = entryId === undefined ? `entry ${index}` : `entry "${entryId}"`;
  if (issue.code === 'invalid_type' && issue.input === undefined)
    return new ApiError(400, 'MISSING_FIELD', `Missing required field ${field} (${record})`, {
      field,
      reason: 'MISSING_FIELD',
    });
  if (issue.message === 'INVALID_IBAN')
    return new ApiError(400, 'INVALID_IBAN', `Invalid IBAN in ${field} (${record})`, {
      field,
      reason: 'INVALID_IBAN',
    });
  return new ApiError(400, 'INVALID_REQUEST', `Invalid value for ${field} (${record})`, {
    field,
    reason: 'INVALID_VALUE',
  });
}

/**
 * The first field of an entry whose key or text holds a character the edge refuses in JSON bodies
 * (control characters, U+FFFD where bytes were not UTF-8, lone surrogates, …): uploads are read here,
 * not by the edge, so this is their check. `''` when it is a key (never echoed); undefined when none.
 */
function unsafeField(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  for (const [key, value] of Object.entries(entry)) {
    if (hasUnsafeCharacter(key)) return '';
    if (typeof value === 'string' && hasUnsafeCharacter(value)) return key;
  }
  return undefined;
}

function unsafeEntry(field: string, index: number, entryId: string | undefined): ApiError {
  const record = entryId === undefined ? `entry ${index}` : `entry "${entryId}"`;
  return new ApiError(
    400,
    'INVALID_CHARACTERS',
    `Control or invalid characters in field: ${field} (${record})`,
    { field, reason: 'INVALID_CHARACTERS' },
  );
}

/** Entries checked between turns of the event loop (10,000 at once held it ~150 ms). */
const ENTRIES_PER_TURN = 500;

async function parseEntries<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  arrayField: string,
  idOf: (entry: unknown) => string | undefined,
): Promise<z.infer<S>[]> {
  if (!Array.isArray(raw) || raw.length === 0)
    throw new ApiError(400, 'MISSING_FIELD', `Missing required field: ${arrayField}`, {
      field: arrayField,
      reason: 'MISSING_FIELD',
    });
  if (raw.length > MAX_BATCH_ENTRIES) throw tooManyEntries();
  const entries: z.infer<S>[] = [];
  for (const [index, entry] of raw.entries()) {
    if (index > 0 && index % ENTRIES_PER_TURN === 0) await setImmediate();
    const unsafe = unsafeField(entry);
    if (unsafe !== undefined)
      throw unsafeEntry(
        [`${arrayField}[${index}]`, unsafe].filter(Boolean).join('.'),
        index,
        idOf(entry),
      );
    const parsed = schema.safeParse(entry);
    if (!parsed.success)
      throw entryError(parsed.error.issues[0] as z.core.$ZodIssue, arrayField, index, idOf(entry));
    entries.push(parsed.data);
  }
  return entries;
}

const EntryId = VisibleText(100);

/** The entry's id, to name it in a refusal: only one that is itself valid is echoed. */
const idOf = (entry: unknown): string | undefined => {
  const id = (entry as { id?: unknown } | null)?.id;
  return EntryId.safeParse(id).success && !hasUnsafeCharacter(id as string)
    ? (id as string)
    : undefined;
};

/** Form 2 entries: each valid, ids unique. */
export async function parseIbanEntries(raw: unknown): Promise<BatchEntry[]> {
  const entries = await parseEntries(BatchEntry, raw, 'verifications', idOf);
  const seen = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    if (seen.has(entry.id))
      throw new ApiError(
        400,
        'DUPLICATE_ENTRY_ID',
        `Entry id "${entry.id}" appears more than once (verifications[${index}].id)`,
        { field: `verifications[${index}].id`, reason: 'DUPLICATE' },
      );
    seen.add(entry.id);
  }
  return entries;
}

/** Form 1 entries; their ids are their positions ("1", "2", …). */
export function parseAccountNumberEntries(raw: unknown): Promise<AccountNumberEntry[]> {
  return parseEntries(AccountNumberEntry, raw, 'accounts', () => undefined);
}

/** What makes two submissions of one batch id the same: the entries, in order, as normalised. */
export function entriesDigest(entries: readonly object[]): string {
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex');
}
