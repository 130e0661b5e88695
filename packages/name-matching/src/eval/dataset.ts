import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { AccountHolder, HolderType, MatchOutcome } from '../types.js';

export interface LabelledCase {
  readonly typedName: string;
  readonly holder: AccountHolder;
  readonly expected: MatchOutcome;
  readonly category: string;
  readonly language: string;
  /** Where the case comes from (hand-written sets only). */
  readonly source: string;
}

export const DEV_SET_URL = new URL('../../eval/vop-dev-set.csv', import.meta.url);
/** Hand-written cases for the hard edges: truncated records, sole traders, romanisations, markers. */
export const HARD_EDGES_URL = new URL('../../eval/hard-edges-cases.csv', import.meta.url);

const OUTCOMES: readonly string[] = ['MTCH', 'CMTC', 'NMTC'];
const HOLDER_TYPES: readonly string[] = ['person', 'organisation'];

/**
 * Reads a labelled set: typed_name, holder_names (| separated), holder_type, expected, category, language
 * and, optionally, source.
 */
export function loadLabelledCases(url: URL = DEV_SET_URL): LabelledCase[] {
  const records = parse(readFileSync(url), { columns: true, skip_empty_lines: true }) as Record<
    string,
    string
  >[];
  return records.map((record, index) => {
    const expected = record['expected'] ?? '';
    const holderType = record['holder_type'] ?? '';
    if (!OUTCOMES.includes(expected))
      throw new Error(`line ${index + 2}: expected must be MTCH, CMTC or NMTC`);
    if (holderType !== '' && !HOLDER_TYPES.includes(holderType))
      throw new Error(`line ${index + 2}: bad holder_type`);
    const holder: AccountHolder = { names: (record['holder_names'] ?? '').split('|') };
    if (holderType !== '') holder.holderType = holderType as HolderType;
    return {
      typedName: record['typed_name'] ?? '',
      holder,
      expected: expected as MatchOutcome,
      category: record['category'] ?? '',
      language: record['language'] ?? '',
      source: record['source'] ?? '',
    };
  });
}
