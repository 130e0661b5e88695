/*
 * Characters no text the service takes may hold (issues 11 and 39), checked at the edge on every
 * string of a request (packages/http/src/hostile-input.ts) and by the text contracts (identifiers.ts):
 * - what PostgreSQL refuses or a broken client sends: control characters but tab and line breaks,
 *   U+FFFD (bytes that were not UTF-8), unpaired surrogates;
 * - what changes how a name looks without being seen, spoofing it on a page or in a CSV file: line
 *   and paragraph separators; every format character (\p{Cf}: bidirectional marks, embeddings,
 *   overrides and isolates, the Arabic letter mark, zero-width space, word joiner, invisible
 *   operators, soft hyphen, BOM, tags); what Unicode says to render as nothing
 *   (Default_Ignorable_Code_Point: the Hangul fillers, the combining grapheme joiner); and the blank
 *   braille pattern, of which a name of "visible" characters could otherwise be made.
 * Variation selectors stay: they choose an ideograph's form in a Japanese name, or an emoji's.
 */

/**
 * Scripts whose names need the zero-width joiner and non-joiner to be spelled: in cursive Arabic
 * (Persian, Urdu, Pashto, Kurdish…), Syriac and N'Ko they choose a letter's joined or final form; in
 * the Brahmic scripts a conjunct's, half or explicit-virama form. There, and only between two
 * letters (or marks) of one such script, the joiners stay.
 */
const JOINING_SCRIPTS = [
  'Arabic',
  'Syriac',
  'Nko',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
] as const;

/**
 * The same characters of the Basic Multilingual Plane as a pattern's class, for the API document and
 * the quick test. A pattern cannot state the joiners' rule (they are left out, so a client validating
 * by the document keeps Persian and Hindi names), nor unpaired surrogates and the format characters
 * above U+FFFF: all are refused the same. unsafe-characters.test.ts checks the list against Unicode.
 */
export const UNSAFE_CHARACTER_CLASS =
  '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u00AD\\u034F\\u0600-\\u0605\\u061C' +
  '\\u06DD\\u070F\\u0890\\u0891\\u08E2\\u115F\\u1160\\u17B4\\u17B5\\u180E\\u200B\\u200E\\u200F' +
  '\\u2028-\\u202E\\u2060-\\u206F\\u2800\\u3164\\uFEFF\\uFFA0\\uFFF0-\\uFFFB\\uFFFD';

// Printable ASCII, Latin-1 but the soft hyphen, U+00AE–U+05FF but the combining grapheme joiner
// (Latin, diacritics, Greek, Cyrillic, Armenian, Hebrew), Vietnamese letters, typographic dashes and
// quotes: none is refused, and most names hold nothing else, so most tests end after this scan.
const SURELY_SAFE =
  /^[\t\n\r\x20-\x7E\xA0-\xAC\xAE-\u034E\u0350-\u05FF\u1E00-\u1EFF\u2010-\u2027]*$/;

// A code unit that is, or may begin, a refused character: one of the class, a joiner, a surrogate
// (an astral character, or unpaired). Text in other scripts has none, and is done with after this.
const MAYBE_UNSAFE = new RegExp(`[${UNSAFE_CHARACTER_CLASS}\\u200C\\u200D\\uD800-\\uDFFF]`);

const UNSAFE =
  /(?![\u200C\u200D]|\p{Variation_Selector})[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800\uFFFD]/u;

// A joiner but between two letters (or marks) of one joining script: one pass over the text, so a
// body made of joiners costs a few times its JSON.parse, not one regex run per joiner.
const JOINER = '[\\u200C\\u200D]';
const STRAY_JOINER = new RegExp(
  `${JOINER}(?:(?<![\\p{L}\\p{M}]${JOINER})|(?![\\p{L}\\p{M}])|${JOINING_SCRIPTS.map(
    (script) => `(?!(?<=\\p{scx=${script}}${JOINER})(?=\\p{scx=${script}}))`,
  ).join('')})`,
  'u',
);

/** Whether `value` holds a character listed above. It runs on every string of every request. */
export function hasUnsafeCharacter(value: string): boolean {
  if (SURELY_SAFE.test(value) || !MAYBE_UNSAFE.test(value)) return false;
  return UNSAFE.test(value) || STRAY_JOINER.test(value);
}
