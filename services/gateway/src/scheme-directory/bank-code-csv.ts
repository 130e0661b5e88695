import { Bic } from '@vop/contracts';
import { parse as parseCsv } from 'csv-parse/sync';
import { normaliseBic } from './adherence.js';
import { bankCodePosition, isIbanCountry } from './bank-code-positions.js';

/** The most rows a bank-code file may hold (every national directory of SEPA together is fewer). */
export const MAX_BANK_CODE_ROWS = 200_000;
/** How many problems a refusal names; the rest are counted. */
export const MAX_REPORTED_PROBLEMS = 20;

const HEADER = ['country', 'bank_code', 'bic'];

/** Country → its [national bank code, BIC (11 characters)] pairs. */
export type BankCodes = Record<string, [string, string][]>;

/** What is wrong with one line of the file. */
export interface BankCodeProblem {
  line: number;
  message: string;
}

export type ParsedBankCodes =
  | { ok: true; codes: BankCodes; entries: number }
  | { ok: false; problems: BankCodeProblem[]; total: number };

function problemOfRow(country: string, bankCode: string, bic: string): string | undefined {
  if (!/^[A-Z]{2}$/.test(country) || !isIbanCountry(country))
    return `column country: "${country}" is not an IBAN country code (two upper-case letters)`;
  const position = bankCodePosition(country);
  if (position === undefined)
    return `column country: IBANs of ${country} carry no national bank code to route by`;
  if (!position.pattern.test(bankCode))
    return (
      `column bank_code: "${bankCode}" is not a bank code of ${country} ` +
      `(${position.length} characters as the IBAN holds them, ${position.pattern.source})`
    );
  if (!Bic.safeParse(bic).success) return `column bic: "${bic}" is not a valid BIC`;
  return undefined;
}

/**
 * A bank-code file (the national bank-code directories' form): an optional header line
 * `country,bank_code,bic`, then one row per bank code. Each row is checked against the IBAN of its
 * country; a bank code twice with another BIC is a problem, twice with the same BIC is not.
 */
export function parseBankCodeCsv(text: string): ParsedBankCodes {
  const problems: BankCodeProblem[] = [];
  let rows: string[][];
  // The line each row ends on (from on_record: the `info` option costs twice the parse).
  const lines: number[] = [];
  try {
    rows = parseCsv(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      // Either line end, even mixed in one file.
      record_delimiter: ['\r\n', '\n'],
      on_record: (record: string[], context) => {
        lines.push(context.lines);
        return record;
      },
    });
  } catch (error) {
    const { code, lines } = error as { code?: unknown; lines?: unknown };
    const line = typeof lines === 'number' ? lines : 1;
    // csv-parse names its errors by code (CSV_QUOTE_NOT_CLOSED, …); the data is not echoed.
    return {
      ok: false,
      problems: [{ line, message: `not readable as CSV (${String(code)})` }],
      total: 1,
    };
  }
  const first = rows[0]?.map((cell) => cell.toLowerCase());
  if (first !== undefined && first.join(',') === HEADER.join(',')) {
    rows = rows.slice(1);
    lines.shift();
  }
  if (rows.length === 0)
    return {
      ok: false,
      problems: [{ line: 1, message: 'the file holds no bank code (country,bank_code,bic rows)' }],
      total: 1,
    };
  if (rows.length > MAX_BANK_CODE_ROWS) {
    const line = lines[MAX_BANK_CODE_ROWS] ?? 1;
    const message = `more than ${MAX_BANK_CODE_ROWS} rows: split the file by country`;
    return { ok: false, problems: [{ line, message }], total: 1 };
  }
  const codes: BankCodes = {};
  // country + bank code → the first line naming it and its BIC.
  const seen = new Map<string, { line: number; bic: string }>();
  let entries = 0;
  let total = 0;
  const refuse = (line: number, message: string) => {
    total += 1;
    if (problems.length < MAX_REPORTED_PROBLEMS) problems.push({ line, message });
  };
  for (const [index, record] of rows.entries()) {
    const line = lines[index] ?? 0;
    if (record.length !== 3) {
      refuse(line, `${record.length} columns where country,bank_code,bic are 3`);
      continue;
    }
    const [country = '', bankCode = '', bic = ''] = record;
    const problem = problemOfRow(country, bankCode, bic);
    if (problem !== undefined) {
      refuse(line, problem);
      continue;
    }
    const normalised = normaliseBic(bic);
    const earlier = seen.get(country + bankCode);
    if (earlier === undefined) {
      seen.set(country + bankCode, { line, bic: normalised });
      (codes[country] ??= []).push([bankCode, normalised]);
      entries += 1;
    } else if (earlier.bic !== normalised)
      refuse(
        line,
        `column bic: ${country} ${bankCode} is ${earlier.bic} on line ${earlier.line}; ` +
          'one bank code names one BIC',
      );
  }
  return total === 0 ? { ok: true, codes, entries } : { ok: false, problems, total };
}
