/** One word of a name after folding. */
export interface Token {
  /** Spelling with umlauts expanded (müller → mueller). */
  readonly text: string;
  /** Spelling with umlauts stripped (müller → muller); equal to text when the word had none. */
  readonly alt: string;
  /** The word was written in Greek or Cyrillic. */
  readonly transliterated: boolean;
  /** Joined to the next word by a hyphen (Min-jun, Jean-Pierre): the two are one name in that order. */
  hyphenNext?: boolean;
  /** Memo of looseKey(text), filled on first use. */
  loose?: string;
  /** Memo of translitKeysOf(token). */
  translit?: readonly string[];
}

export function makeToken(text: string, alt: string = text, transliterated = false): Token {
  return { text, alt, transliterated };
}

export function sameSpelling(a: Token, b: Token): boolean {
  return a.text === b.text || a.alt === b.alt || a.text === b.alt || a.alt === b.text;
}

export function joinTokens(tokens: readonly Token[], separator = ''): Token {
  if (tokens.length === 1) return tokens[0]!;
  return {
    text: tokens.map((t) => t.text).join(separator),
    alt: tokens.map((t) => t.alt).join(separator),
    transliterated: tokens.some((t) => t.transliterated),
  };
}

const DIGIT = /[0-9]/;
export function hasDigit(token: Token): boolean {
  return DIGIT.test(token.text);
}

const ROMAN_NUMERAL = /^(x{0,3})(ix|iv|v?i{0,3})$/;
/** Roman numerals up to 39, the range used for fund series and generations (II, IV, XII). */
export function isRomanNumeral(token: Token): boolean {
  return token.text.length > 0 && ROMAN_NUMERAL.test(token.text);
}
