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
// Greek "ου" is one sound (ou/u); any-ascii writes it letter by letter as "oy".
const GREEK_OU = /[οόΟΌ][υύΥΎ]/g;
const NEEDS_PREMAP = /[äöüøåæœßẞÄÖÜØÅÆŒ]|[οόΟΌ][υύΥΎ]/;
const COMBINING_MARK = /[\u0300-\u036f]/;
const GREEK_OR_CYRILLIC = /[\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f]/;
const NON_ASCII = /[^\x00-\x7f]/;

function toAsciiLower(text: string): string {
  return (NON_ASCII.test(text) ? anyAscii(text) : text).toLowerCase();
}

export function foldText(raw: string): FoldedText {
  let text = COMBINING_MARK.test(raw) ? raw.normalize('NFC') : raw;
  const transliterated = GREEK_OR_CYRILLIC.test(text);
  if (!NEEDS_PREMAP.test(text)) {
    const folded = toAsciiLower(text);
    return { expanded: folded, stripped: folded, transliterated };
  }
  text = text.replace(GREEK_OU, (pair) => (pair[0] === pair[0]!.toUpperCase() ? 'Ou' : 'ou'));
  const expanded = toAsciiLower(text.replace(UMLAUT_LIKE, (ch) => EXPANDED[ch] ?? ch));
  const stripped = toAsciiLower(text.replace(UMLAUT_LIKE, (ch) => STRIPPED[ch] ?? ch));
  return { expanded, stripped, transliterated };
}
