/**
 * The EPC inter-PSP API carries only the Latin character set in UTF-8. We read that as: Basic Latin
 * (printable), Latin-1 Supplement, Latin Extended-A and -B, Latin Extended Additional, combining
 * diacritical marks, and typographic quotes and dashes. Anything else (Cyrillic, Greek, CJK, emoji,
 * control characters) is outside the set, and so are the two invisible characters of those blocks, the
 * soft hyphen and the combining grapheme joiner (unsafe-characters.ts).
 */
const LATIN_TEXT =
  /^[\u0020-\u007E\u00A0-\u00AC\u00AE-\u024F\u0300-\u034E\u0350-\u036F\u1E00-\u1EFF\u2013\u2014\u2018-\u201F]*$/u;

export function isLatinText(value: string): boolean {
  return LATIN_TEXT.test(value);
}

/** The reason a non-Latin value is refused with (FORMAT_ERROR on the EPC path). */
export const NON_LATIN_CHARACTERS = 'NON_LATIN_CHARACTERS';
