import type { NicknameIndex } from '../tables/nickname-index.js';
import { looseKeyOf, sameTransliteration, translitKeysOf } from '../text/loose-key.js';
import { sameRomanisation } from '../text/romanisation-key.js';
import { hasDigit, isRomanNumeral, sameSpelling, type Token } from '../text/token.js';
import { FACTORS } from '../scoring.js';
import { ARABIC_ARTICLES } from '../tables/lexicon.js';
import { DIFFERENT_NAMES_SPELT_ALIKE } from '../tables/person-markers.js';
import { typingDistance } from './edit-distance.js';

export type TokenMatchKind =
  'exact' | 'transliteration' | 'spellingVariant' | 'nickname' | 'initial' | 'typo';

export interface TokenMatch {
  readonly kind: TokenMatchKind;
  readonly factor: number;
}

export type NameKind = 'person' | 'organisation';

const EXACT: TokenMatch = { kind: 'exact', factor: 1 };
const TRANSLITERATION: TokenMatch = { kind: 'transliteration', factor: 1 };
const SPELLING_VARIANT: TokenMatch = { kind: 'spellingVariant', factor: FACTORS.spellingVariant };
/** A one-letter slip that is also a common spelling variant (Sergei / Sergey, Mülller / Müller). */
const SLIP_VARIANT: TokenMatch = { kind: 'typo', factor: FACTORS.spellingVariant };
const NICKNAME: TokenMatch = { kind: 'nickname', factor: FACTORS.nickname };
const INITIAL: TokenMatch = { kind: 'initial', factor: FACTORS.initial };
const TYPO_ONE: TokenMatch = { kind: 'typo', factor: FACTORS.typoOneEdit };
const TYPO_TWO: TokenMatch = { kind: 'typo', factor: FACTORS.typoTwoEdits };

const DIFFERENT_PAIRS: ReadonlySet<string> = new Set(
  DIFFERENT_NAMES_SPELT_ALIKE.flatMap(([a, b]) => [`${a} ${b}`, `${b} ${a}`]),
);

const MIN_LENGTH_FOR_TYPOS = 4;
const MIN_LENGTH_FOR_TWO_TYPOS = 11;
const VOWELS = 'aeiouy';

/** Edits allowed in a word: none for very short words, growing with length. */
export function typoTolerance(shorterLength: number): number {
  if (shorterLength < MIN_LENGTH_FOR_TYPOS) return 0;
  return shorterLength >= MIN_LENGTH_FOR_TWO_TYPOS ? 2 : 1;
}

/**
 * One edit at the very end of a name that changes or adds a vowel (or a final s) is how European
 * languages form a different name, not a slip: Maria / Mario, Jan / Jana, Kowalski / Kowalska,
 * Papadopoulos / Papadopoulou, Scholz / Scholze.
 */
export function isInflectedEnding(a: string, b: string): boolean {
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  if (shorter.length === longer.length) {
    const last = shorter.length - 1;
    if (shorter.slice(0, last) !== longer.slice(0, last)) return false;
    return (
      VOWELS.includes(shorter[last]!) ||
      VOWELS.includes(longer[last]!) ||
      shorter[last] === 's' ||
      longer[last] === 's'
    );
  }
  if (longer.length !== shorter.length + 1 || !longer.startsWith(shorter)) return false;
  const added = longer[longer.length - 1]!;
  return VOWELS.includes(added) || added === 's';
}

export class TokenMatcher {
  constructor(private readonly nicknames: NicknameIndex) {}

  isGivenName(token: Token): boolean {
    return this.nicknames.isGivenName(token);
  }

  match(a: Token, b: Token, kind: NameKind): TokenMatch | null {
    if (sameSpelling(a, b)) return a.transliterated !== b.transliterated ? TRANSLITERATION : EXACT;
    if (kind === 'person' && ARABIC_ARTICLES.has(a.text) && ARABIC_ARTICLES.has(b.text))
      return EXACT;
    const lengthA = a.text.length;
    const lengthB = b.text.length;
    if (lengthA === 1 || lengthB === 1) {
      if (kind === 'person' && lengthA !== lengthB && a.text[0] === b.text[0]) return INITIAL;
      return null;
    }
    // Numbers and series numerals (Fund II / Fund III) are never spelling variants of each other.
    if (
      hasDigit(a) ||
      hasDigit(b) ||
      (kind === 'organisation' && (isRomanNumeral(a) || isRomanNumeral(b)))
    )
      return null;
    // Greek or Cyrillic against Latin: compared through transliteration keys.
    const transliterated = a.transliterated !== b.transliterated;
    const shorter = Math.min(a.alt.length, b.alt.length);
    if (transliterated) {
      if (sameTransliteration(a, b)) return TRANSLITERATION;
    } else if (
      shorter >= MIN_LENGTH_FOR_TYPOS &&
      Math.abs(lengthA - lengthB) <= 3 &&
      looseKeyOf(a) === looseKeyOf(b) &&
      !(kind === 'person' && this.differentNamesSpeltAlike(a, b))
    ) {
      return this.variant(a, b);
    }
    if (kind === 'person') {
      if (this.nicknames.sameRomanisedName(a, b))
        return transliterated ? TRANSLITERATION : SPELLING_VARIANT;
      if (this.nicknames.related(a, b)) return NICKNAME;
      // Two different known given names (Karin / Karen, Tom / Tim) are two people, not a slip.
      if (!transliterated && this.nicknames.isGivenName(a) && this.nicknames.isGivenName(b))
        return null;
      // Zhukov / Joukov / Schukow: the same Cyrillic name by another romanisation convention.
      if (!transliterated && shorter >= MIN_LENGTH_FOR_TYPOS && sameRomanisation(a, b))
        return SPELLING_VARIANT;
    }
    const tolerance = typoTolerance(shorter);
    if (tolerance === 0) return null;
    let edits = typingDistance(a.text, b.text, tolerance);
    if (edits > 1 && (a.alt !== a.text || b.alt !== b.text))
      edits = Math.min(edits, typingDistance(a.alt, b.alt, tolerance));
    if (edits > 1 && a.transliterated && b.transliterated)
      edits = Math.min(edits, typingDistance(looseKeyOf(a), looseKeyOf(b), tolerance));
    if (edits > 1 && transliterated)
      edits = Math.min(
        edits,
        typingDistance(translitKeysOf(a)[0]!, translitKeysOf(b)[0]!, tolerance),
      );
    if (edits > tolerance) return null;
    if (kind === 'person' && edits === 1 && isInflectedEnding(a.alt, b.alt)) return null;
    if (
      kind === 'person' &&
      transliterated &&
      isInflectedEnding(translitKeysOf(a)[0]!, translitKeysOf(b)[0]!)
    )
      return null;
    return edits === 1 ? TYPO_ONE : TYPO_TWO;
  }

  /** Sara / Zara, Ilka / Ilkka: two known names that the loose spelling key would take for one. */
  private differentNamesSpeltAlike(a: Token, b: Token): boolean {
    return DIFFERENT_PAIRS.has(`${a.alt} ${b.alt}`);
  }

  private variant(a: Token, b: Token): TokenMatch {
    return typingDistance(a.alt, b.alt, 1) <= 1 ? SLIP_VARIANT : SPELLING_VARIANT;
  }
}
