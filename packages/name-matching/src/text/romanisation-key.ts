import { ROMANISATION_CONVENTIONS } from '../tables/romanisation-conventions.js';
import type { Token } from './token.js';

interface Convention {
  readonly pattern: RegExp;
  readonly spellings: ReadonlyMap<string, string>;
  readonly appliesTo: RegExp | undefined;
}
// Alternatives in table order, longest first, so one pass reads each letter group once.
const CONVENTIONS: readonly Convention[] = ROMANISATION_CONVENTIONS.map(
  ({ groups, appliesTo }) => ({
    pattern: new RegExp(groups.map(([from]) => from).join('|'), 'g'),
    spellings: new Map(groups),
    appliesTo,
  }),
);

function applyConvention(text: string, convention: Convention): string {
  return text.replace(convention.pattern, (group) => convention.spellings.get(group) ?? group);
}

const SAME_LETTER: Readonly<Record<string, string>> = { w: 'v', y: 'i' };

/** Only what every standard agrees on: w is v, y is i, a doubled letter is one. Sibilants stay apart. */
function standardSpelling(text: string): string {
  let key = '';
  for (const ch of text) {
    const letter = SAME_LETTER[ch] ?? ch;
    if (key[key.length - 1] !== letter) key += letter;
  }
  return key;
}

// Keys recur with the words: kept in a memo that is emptied when it grows too large.
const MEMO_LIMIT = 20_000;
const memo = new Map<string, readonly string[]>();

/** The word as written and as read under each national convention, in the standard spelling. */
function keysOf(spelling: string): readonly string[] {
  let keys = memo.get(spelling);
  if (keys === undefined) {
    const all = new Set([standardSpelling(spelling)]);
    for (const convention of CONVENTIONS)
      if (!convention.appliesTo || convention.appliesTo.test(spelling))
        all.add(standardSpelling(applyConvention(spelling, convention)));
    keys = [...all];
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(spelling, keys);
  }
  return keys;
}

/** Both spellings of the word (umlauts expanded, ISO 9 read), each as written and under the conventions. */
function romanisationKeysOf(token: Token): readonly string[] {
  const keys = keysOf(token.alt);
  return token.text === token.alt ? keys : [...keys, ...keysOf(token.text)];
}

const LAST_LETTER: Readonly<Record<string, string>> = { w: 'v', y: 'i', j: 'i' };
const lastLetter = (text: string): string => {
  const last = text[text.length - 1]!;
  return LAST_LETTER[last] ?? last;
};
const MAX_LENGTH_DIFFERENCE = 4;

/** Two Latin spellings of one Cyrillic name under different conventions (Zhukov / Joukov / Zjoekov). */
export function sameRomanisation(a: Token, b: Token): boolean {
  // No convention changes the last letter or the length by much: most pairs are turned away here.
  if (
    Math.abs(a.alt.length - b.alt.length) > MAX_LENGTH_DIFFERENCE ||
    lastLetter(a.alt) !== lastLetter(b.alt)
  )
    return false;
  const keysB = romanisationKeysOf(b);
  return romanisationKeysOf(a).some((key) => keysB.includes(key));
}
