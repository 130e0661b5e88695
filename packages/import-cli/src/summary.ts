import type { AccountImportResponse } from '@vop/contracts';

/** The summary printed at the end: counts, then the first row errors (row, field, code). */
export function renderSummary(summary: AccountImportResponse, seconds: number, shown = 20): string {
  const { rows } = summary;
  const rate = seconds > 0 ? Math.round(rows.read / seconds) : rows.read;
  const lines = [
    `import ${summary.importId}: ${summary.status}`,
    `  read ${rows.read}  created ${rows.created}  updated ${rows.updated}  unchanged ${rows.unchanged}  failed ${rows.failed}`,
    `  ${seconds.toFixed(1)} s, ${rate} rows/s; status: ${summary.statusUrl}`,
  ];
  if (summary.failure !== undefined) lines.push(`  stopped: ${summary.failure}`);
  for (const error of summary.errors.slice(0, shown))
    lines.push(`  row ${error.row}: ${error.field} ${error.code}`);
  const more = rows.failed - Math.min(shown, summary.errors.length);
  if (more > 0) lines.push(`  … ${more} more row errors (see the status URL)`);
  return lines.join('\n');
}
