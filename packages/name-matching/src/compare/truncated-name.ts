import { FACTORS } from '../scoring.js';
import { GENERATION_MARKERS } from '../tables/lexicon.js';
import { sameSpelling } from '../text/token.js';
import type { TokenisedName } from '../text/tokenise.js';
import type { Verdict } from './verdict.js';

/** Field lengths at which banks' systems cut a stored name (SEPA and card-scheme name fields, core banking). */
export const CUT_LENGTHS: readonly number[] = [35, 70, 140];
const SHORTEST_CUT = 35;
const ENDS_WITH_SPACE = /\s$/;
const SURROGATE = /[\ud800-\udfff]/;

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Whether a stored name has one of the usual cut lengths, in characters. */
export function hasCutLength(storedRaw: string): boolean {
  const units = storedRaw.length;
  if (units < SHORTEST_CUT) return false;
  // Characters outside the Basic Multilingual Plane take two UTF-16 units: rare, counted only then.
  if (!SURROGATE.test(storedRaw)) return CUT_LENGTHS.includes(units);
  return CUT_LENGTHS.includes(codePoints(storedRaw));
}

/**
 * A stored name cut at a usual field length, which the typed name starts with and runs on past:
 * MTCH when the cut fell between two words, CMTC when it fell inside a word. Undefined otherwise.
 */
export function compareTruncated(
  typed: TokenisedName,
  storedRaw: string,
  stored: TokenisedName,
): Verdict | undefined {
  if (!hasCutLength(storedRaw)) return undefined;
  const storedWords = stored.tokens;
  const typedWords = typed.tokens;
  const last = storedWords.length - 1;
  if (last < 1 || typedWords.length <= last) return undefined;
  for (let i = 0; i < last; i++)
    if (!sameSpelling(storedWords[i]!, typedWords[i]!)) return undefined;
  const storedLast = storedWords[last]!;
  const typedLast = typedWords[last]!;
  if (sameSpelling(storedLast, typedLast)) {
    if (typedWords.length === storedWords.length) return undefined;
    // "… Hohenberg Jr.": a word after the cut that marks another person conflicts with the record.
    for (let i = storedWords.length; i < typedWords.length; i++)
      if (GENERATION_MARKERS.has(typedWords[i]!.text)) return undefined;
    return { kind: 'scored', score: FACTORS.truncatedAtWord, reasons: ['TRUNCATED_NAME'] };
  }
  // A stored name ending in a space ends with a whole word: a different one is no cut.
  if (ENDS_WITH_SPACE.test(storedRaw)) return undefined;
  const cutInside =
    typedLast.text.startsWith(storedLast.text) || typedLast.alt.startsWith(storedLast.alt);
  return cutInside
    ? { kind: 'scored', score: FACTORS.truncatedInWord, reasons: ['TRUNCATED_NAME'] }
    : undefined;
}
