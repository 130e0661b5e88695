/**
 * Hostile and legitimate strings for the tests of the character rule (issue 39), at the edge and in the
 * contracts: packages/contracts/src/unsafe-characters.ts says why each spoofing character is refused.
 */

/** Characters that spoof a name on a page or in a CSV file: refused like control characters. */
export const SPOOFING_CHARACTERS: [string, string][] = [
  ['LINE SEPARATOR', '\u2028'],
  ['PARAGRAPH SEPARATOR', '\u2029'],
  ['LEFT-TO-RIGHT EMBEDDING', '\u202A'],
  ['RIGHT-TO-LEFT EMBEDDING', '\u202B'],
  ['POP DIRECTIONAL FORMATTING', '\u202C'],
  ['LEFT-TO-RIGHT OVERRIDE', '\u202D'],
  ['RIGHT-TO-LEFT OVERRIDE', '\u202E'],
  ['LEFT-TO-RIGHT ISOLATE', '\u2066'],
  ['RIGHT-TO-LEFT ISOLATE', '\u2067'],
  ['FIRST STRONG ISOLATE', '\u2068'],
  ['POP DIRECTIONAL ISOLATE', '\u2069'],
  ['LEFT-TO-RIGHT MARK', '\u200E'],
  ['RIGHT-TO-LEFT MARK', '\u200F'],
  ['ARABIC LETTER MARK', '\u061C'],
  ['ZERO WIDTH SPACE', '\u200B'],
  ['WORD JOINER', '\u2060'],
  ['FUNCTION APPLICATION', '\u2061'],
  ['INVISIBLE TIMES', '\u2062'],
  ['INVISIBLE SEPARATOR', '\u2063'],
  ['INVISIBLE PLUS', '\u2064'],
  ['ZERO WIDTH NO-BREAK SPACE (BOM)', '\uFEFF'],
  ['MONGOLIAN VOWEL SEPARATOR', '\u180E'],
  ['HANGUL CHOSEONG FILLER', '\u115F'],
  ['HANGUL JUNGSEONG FILLER', '\u1160'],
  ['HANGUL FILLER', '\u3164'],
  ['HALFWIDTH HANGUL FILLER', '\uFFA0'],
  ['SOFT HYPHEN', '\u00AD'],
  ['COMBINING GRAPHEME JOINER', '\u034F'],
  ['BRAILLE PATTERN BLANK', '\u2800'],
  ['ZERO WIDTH JOINER between Latin letters', '\u200D'],
  ['ZERO WIDTH NON-JOINER between Latin letters', '\u200C'],
  ['TAG LATIN CAPITAL LETTER A', '\u{E0041}'],
  ['LANGUAGE TAG', '\u{E0001}'],
];

/** Names as their holders write them, in every script the service takes: none may be refused. */
export const NAMES_IN_EVERY_SCRIPT = [
  'Łukasz Żółć-Ærø',
  'Nguyễn Văn Đức',
  'Siobhán O’Brien',
  'Ελένη Παπαδοπούλου',
  'Екатерина Иванова',
  'محمد رضا',
  'می\u200Cخواهم رضایی',
  'क्\u200Dष राज',
  'অর্\u200Cক',
  '山田太郎',
  '葛\u{E0100}飾北斎',
  '김민준',
  'דוד כהן',
];
