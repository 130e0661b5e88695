import {
  ACCOUNT_IMPORT_CSV_COLUMNS,
  AccountImportRecord,
  type AccountImportRowError,
  type PartyIdentifiers,
} from '@vop/contracts';
import { hasUnsafeCharacter } from '@vop/http';
import type { AccountFields } from '../decider.js';

/** A row's error before it has its number: the field and a code, never the value. */
export type RecordError = Omit<AccountImportRowError, 'row'>;

export type ParsedRecord =
  { ok: true; record: AccountImportRecord } | { ok: false; error: RecordError };

/**
 * The path of the first key or text of a record holding a character the edge refuses in JSON bodies
 * (control characters, U+FFFD where bytes were not UTF-8, lone surrogates, …): uploads are read here,
 * not by the edge, so this is their check. A bad key is never named (`row`); undefined when all are safe.
 */
function unsafeField(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === 'string')
    return hasUnsafeCharacter(value) ? path.join('.') || 'row' : undefined;
  // A record is three levels deep (identifiers.others[i].id); deeper is refused by its schema anyway.
  if (typeof value !== 'object' || value === null || path.length > 3) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (hasUnsafeCharacter(key)) return 'row';
    const found = unsafeField(inner, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Validates one record (an NDJSON line's object, or a CSV row mapped by csvRowToRecord). */
export function parseImportRecord(raw: unknown): ParsedRecord {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, error: { field: 'row', code: 'NOT_A_RECORD' } };
  const unsafe = unsafeField(raw);
  if (unsafe !== undefined) return { ok: false, error: { field: unsafe, code: 'INVALID_FIELD' } };
  const parsed = AccountImportRecord.safeParse(raw);
  if (parsed.success) return { ok: true, record: parsed.data };
  const issue = parsed.error.issues[0];
  if (issue === undefined) return { ok: false, error: { field: 'row', code: 'NOT_A_RECORD' } };
  if (issue.code === 'unrecognized_keys')
    return { ok: false, error: { field: issue.keys[0] ?? 'row', code: 'UNKNOWN_FIELD' } };
  const field = issue.path.map(String).join('.') || 'row';
  const value = issue.path.reduce<unknown>(
    (at, key) => (typeof at === 'object' && at !== null ? (at as never)[key] : undefined),
    raw,
  );
  if (value === undefined) return { ok: false, error: { field, code: 'MISSING_FIELD' } };
  if (field === 'iban') return { ok: false, error: { field, code: 'INVALID_IBAN' } };
  return { ok: false, error: { field, code: 'INVALID_FIELD' } };
}

/** A CSV header: the documented columns only, iban and name among them. */
export function checkCsvHeader(header: readonly string[]): string | undefined {
  if (header.some((column) => hasUnsafeCharacter(column)))
    return 'a column name holds control or invalid characters';
  const known = new Set<string>(ACCOUNT_IMPORT_CSV_COLUMNS);
  const unknown = header.find((column) => !known.has(column));
  if (unknown !== undefined) return `unknown column "${unknown.slice(0, 40)}"`;
  for (const required of ['iban', 'name'])
    if (!header.includes(required)) return `the column "${required}" is missing`;
  if (new Set(header).size !== header.length) return 'a column appears twice';
  return undefined;
}

const split = (cell: string): string[] =>
  cell
    .split('|')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);

/** `LEI:5299…|DUNS:123`: the LEI scheme fills `lei`, the others `others`. */
function identifiersOf(cell: string): PartyIdentifiers | { invalid: true } {
  const identifiers: PartyIdentifiers = {};
  for (const pair of split(cell)) {
    const at = pair.indexOf(':');
    if (at <= 0 || at === pair.length - 1) return { invalid: true };
    const scheme = pair.slice(0, at).trim();
    const id = pair.slice(at + 1).trim();
    if (scheme.toUpperCase() === 'LEI') identifiers.lei = id;
    else (identifiers.others ??= []).push({ scheme, id });
  }
  return identifiers;
}

/**
 * One CSV row as a record to validate: empty cells are absent, alternateNames and identifiers are
 * `|`-separated. A row with another number of cells than the header is refused.
 */
export function csvRowToRecord(
  header: readonly string[],
  cells: readonly string[],
): { ok: true; raw: Record<string, unknown> } | { ok: false; error: RecordError } {
  if (cells.length !== header.length)
    return { ok: false, error: { field: 'row', code: 'NOT_A_RECORD' } };
  const raw: Record<string, unknown> = {};
  header.forEach((column, index) => {
    const cell = (cells[index] as string).trim();
    if (cell === '') return;
    if (column === 'alternateNames') raw.alternateNames = split(cell);
    else if (column === 'identifiers') raw.identifiers = identifiersOf(cell);
    else raw[column] = cell;
  });
  if (
    typeof raw.identifiers === 'object' &&
    raw.identifiers !== null &&
    'invalid' in raw.identifiers
  )
    return { ok: false, error: { field: 'identifiers', code: 'INVALID_FIELD' } };
  return { ok: true, raw };
}

/** The account fields an import row asks for: the whole record, its defaults applied. */
export function importedFields(record: AccountImportRecord): AccountFields {
  return {
    iban: record.iban,
    name: record.name,
    ...(record.holderType && { holderType: record.holderType }),
    alternateNames: record.alternateNames ?? [],
    ...(record.identifiers && { identifiers: record.identifiers }),
    status: record.status ?? 'active',
  };
}

/** A stable text of the record (keys in one order, defaults applied), for its fingerprint. */
export function canonicalRecord(record: AccountImportRecord): string {
  const fields = importedFields(record);
  const others = [...(fields.identifiers?.others ?? [])].map(({ scheme, id }) => [scheme, id]);
  return JSON.stringify([
    fields.iban,
    fields.name,
    fields.holderType ?? null,
    fields.alternateNames,
    fields.identifiers?.lei ?? null,
    others,
    fields.status,
  ]);
}
