import { foldText } from './fold.js';
import type { Token } from './token.js';

export interface TokenisedName {
  readonly tokens: readonly Token[];
  /** Number of tokens before the first comma ("Smith, John" → 1), or -1 without a comma. */
  readonly tokensBeforeComma: number;
  readonly transliterated: boolean;
  /** Single letters with a period after them ("A." in "Jan A. Kowalski"): initials, not words. */
  readonly dotted: ReadonlySet<Token>;
}

const NONE_DOTTED: ReadonlySet<Token> = new Set();

const APOSTROPHES = /['`´ʼ’‘]/g;
const WORD = /[a-z0-9]+|&/g;

const HAS_APOSTROPHE = /['`´ʼ’‘]/;
function words(folded: string): string[] {
  return (HAS_APOSTROPHE.test(folded) ? folded.replace(APOSTROPHES, '') : folded).match(WORD) ?? [];
}

// "Hans Müller / Anna Schmidt", "A + B", "A+B": a free-standing slash, any plus or a semicolon
// joins two holders; a slash inside a word is kept as punctuation (t/a, c/o).
const HOLDER_SEPARATOR = /\s[/]\s|\s*[+;]\s*/g;
const MAY_HAVE_SEPARATOR = /[/+;]/;

export function tokenise(raw: string): TokenisedName {
  const folded = foldText(
    MAY_HAVE_SEPARATOR.test(raw) ? raw.replace(HOLDER_SEPARATOR, ' & ') : raw,
  );
  const texts = words(folded.expanded);
  const alts = folded.stripped === folded.expanded ? texts : words(folded.stripped);
  const sameShape = alts.length === texts.length;
  const tokens: Token[] = texts.map((text, i) => ({
    text,
    alt: sameShape ? alts[i]! : text,
    transliterated: folded.transliterated,
    hyphenNext: false,
  }));
  const commaAt = folded.expanded.indexOf(',');
  const tokensBeforeComma = commaAt < 0 ? -1 : words(folded.expanded.slice(0, commaAt)).length;
  if (folded.expanded.includes('-')) markHyphens(folded.expanded, tokens);
  const dotted =
    folded.expanded.includes('.') && tokens.some((t) => t.text.length === 1)
      ? dottedLetters(folded.expanded, tokens)
      : NONE_DOTTED;
  return { tokens, tokensBeforeComma, transliterated: folded.transliterated, dotted };
}

function dottedLetters(folded: string, tokens: readonly Token[]): ReadonlySet<Token> {
  const text = HAS_APOSTROPHE.test(folded) ? folded.replace(APOSTROPHES, '') : folded;
  const dotted = new Set<Token>();
  let index = 0;
  for (const word of text.matchAll(WORD)) {
    const token = tokens[index++];
    if (token?.text.length === 1 && text[word.index + 1] === '.') dotted.add(token);
  }
  return dotted;
}

function markHyphens(folded: string, tokens: readonly Token[]): void {
  const text = HAS_APOSTROPHE.test(folded) ? folded.replace(APOSTROPHES, '') : folded;
  let index = 0;
  for (const word of text.matchAll(WORD)) {
    const token = tokens[index++];
    const end = word.index + word[0].length;
    if (token && text[end] === '-' && /[a-z0-9]/.test(text[end + 1] ?? '')) token.hyphenNext = true;
  }
}
