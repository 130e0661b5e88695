import anyAscii from 'any-ascii';

/** One name, folded to lowercase ASCII in two spellings that differ only for umlaut-like letters. */
export interface FoldedText {
  /** ä→ae, ö→oe, ü→ue, ø→oe, å→aa, ß→ss: how German and Nordic names are spelt without the letter. */
  expanded: string;
  /** ä→a, ö→o, ü→u, ø→o, å→a, ß→ss: how the same names are spelt when the accent is simply dropped. */
  stripped: string;
  /** Whether the name was written in Greek or Cyrillic and has been transliterated. */
  transliterated: boolean;
}

const EXPANDED: Readonly<Record<string, string>> = {
  ä: 'ae', ö: 'oe', ü: 'ue', ø: 'oe', å: 'aa', æ: 'ae', œ: 'oe', ß: 'ss', ẞ: 'ss',
  Ä: 'Ae', Ö: 'Oe', Ü: 'Ue', Ø: 'Oe', Å: 'Aa', Æ: 'Ae', Œ: 'Oe',
};
const STRIPPED: Readonly<Record<string, string>> = {
  ä: 'a', ö: 'o', ü: 'u', ø: 'o', å: 'a', æ: 'ae', œ: 'oe', ß: 'ss', ẞ: 'ss',
  Ä: 'A', Ö: 'O', Ü: 'U', Ø: 'O', Å: 'A', Æ: 'Ae', Œ: 'Oe',
};
const UMLAUT_LIKE = /[äöüøåæœßẞÄÖÜØÅÆŒ]/g;
// Greek digraphs: "ου" is one sound (ou), "αυ"/"ευ"/"ηυ" are av/ev/iv (ELOT 743); any-ascii writes
// them letter by letter (oy, ay, ey).
const GREEK_DIGRAPH = /([οόΟΌ])([υύΥΎ])|([αάΑΆεέΕΈηήΗΉ])([υύΥΎ])/g;
const NEEDS_PREMAP = /[äöüøåæœßẞÄÖÜØÅÆŒχΧ]|[οόΟΌαάΑΆεέΕΈηήΗΉ][υύΥΎ]/;
// Greek χ is the sound of Russian х: written kh here so both fold alike (Christos / Hristos / Khristos).
const GREEK_CHI = /[χΧ]/g;
// Ukrainian (recognised by і ї є ґ) writes г as h and и as y in its official romanisation.
const UKRAINIAN = /[іїєґІЇЄҐ]/;
const UKRAINIAN_LETTERS: Readonly<Record<string, string>> = { г: 'h', Г: 'H', и: 'y', И: 'Y' };
const UKRAINIAN_TARGETS = /[гГиИ]/g;
// Bulgarian ъ is a vowel (Димитър → Dimitar); the Russian hard sign stands before a vowel and is dropped.
const BULGARIAN_VOWEL_SIGN = /[ъЪ](?![еёюяЕЁЮЯ])/g;
const CYRILLIC = /[\u0400-\u052f]/;

function romaniseCyrillicSpellings(text: string): string {
  let result = text.replace(BULGARIAN_VOWEL_SIGN, (ch) => (ch === 'Ъ' ? 'A' : 'a'));
  if (UKRAINIAN.test(result)) result = result.replace(UKRAINIAN_TARGETS, (ch) => UKRAINIAN_LETTERS[ch] ?? ch);
  return result;
}

const COMBINING_MARK = /[\u0300-\u036f]/;
const GREEK_OR_CYRILLIC = /[\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f]/;
const NON_ASCII = /[^\x00-\x7f]/;

function toAsciiLower(text: string): string {
  return (NON_ASCII.test(text) ? anyAscii(text) : text).toLowerCase();
}

export function foldText(raw: string): FoldedText {
  let text = COMBINING_MARK.test(raw) ? raw.normalize('NFC') : raw;
  const transliterated = GREEK_OR_CYRILLIC.test(text);
  if (transliterated && CYRILLIC.test(text)) text = romaniseCyrillicSpellings(text);
  if (!NEEDS_PREMAP.test(text)) {
    const folded = toAsciiLower(text);
    return { expanded: folded, stripped: folded, transliterated };
  }
  text = text.replace(GREEK_DIGRAPH, (pair, o: string | undefined, _u, vowel: string | undefined, upsilon: string) => {
    if (o) return o === o.toUpperCase() ? 'Ou' : 'ou';
    return `${vowel}${upsilon === upsilon.toUpperCase() ? 'Β' : 'β'}`;
  }).replace(GREEK_CHI, (chi) => (chi === 'Χ' ? 'Kh' : 'kh'));
  const expanded = toAsciiLower(text.replace(UMLAUT_LIKE, (ch) => EXPANDED[ch] ?? ch));
  const stripped = toAsciiLower(text.replace(UMLAUT_LIKE, (ch) => STRIPPED[ch] ?? ch));
  return { expanded, stripped, transliterated };
}
