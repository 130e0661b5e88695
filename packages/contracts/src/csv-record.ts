/**
 * Characters that make a spreadsheet (Excel, LibreOffice Calc, Google Sheets) read a cell as a formula
 * when they come first: OWASP's CSV-injection list.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A cell holding one of these is quoted (RFC 4180). */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One cell as written to a CSV file: a cell that would start a formula gets a `'` before it and is
 * quoted (OWASP's advice), so a spreadsheet shows it as typed and never evaluates it; a cell holding
 * the separator, a quote or a line break is quoted, its quotes doubled. Absent is empty.
 */
export function csvCell(value: string | undefined): string {
  if (value === undefined) return '';
  const neutralised = FORMULA_START.test(value);
  const text = neutralised ? `'${value}` : value;
  return neutralised || NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record, ended by a line feed: every CSV the service or its clients write goes through it. */
export function csvRecord(cells: readonly (string | undefined)[]): string {
  return `${cells.map(csvCell).join(',')}\n`;
}
