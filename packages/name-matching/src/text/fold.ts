import anyAscii from 'any-ascii';
import { latiniseLookalikes } from './homoglyphs.js';
import { readAsIso9 } from './iso9.js';

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
  ä: 'ae',
  ö: 'oe',
  ü: 'ue',
  ø: 'oe',
  å: 'aa',
  æ: 'ae',
  œ: 'oe',
  ß: 'ss',
  ẞ: 'ss',
  // Serbian and Croatian đ: dj in the usual ASCII spelling (Djordjevic), d when the stroke is dropped.
  đ: 'dj',
  Đ: 'Dj',
  Ä: 'Ae',
  Ö: 'Oe',
  Ü: 'Ue',
  Ø: 'Oe',
  Å: 'Aa',
  Æ: 'Ae',
  Œ: 'Oe',
};
const STRIPPED: Readonly<Record<string, string>> = {
  ä: 'a',
  ö: 'o',
  ü: 'u',
  ø: 'o',
  å: 'a',
  æ: 'ae',
  œ: 'oe',
  ß: 'ss',
  ẞ: 'ss',
  đ: 'd',
  Đ: 'D',
  Ä: 'A',
  Ö: 'O',
  Ü: 'U',
  Ø: 'O',
  Å: 'A',
  Æ: 'Ae',
  Œ: 'Oe',
};
const UMLAUT_LIKE_ONE = /[äöüøåæœßẞđĐÄÖÜØÅÆŒ]/;
// Greek digraphs: "ου" is one sound (ou), "αυ"/"ευ"/"ηυ" are av/ev/iv (ELOT 743); any-ascii writes
// them letter by letter (oy, ay, ey).
const GREEK_DIGRAPH = /([οόΟΌ])([υύΥΎ])|([αάΑΆεέΕΈηήΗΉ])([υύΥΎ])/g;
// αυ/ευ are af/ef before a voiceless consonant or at the end of a word (Eleftherios), else av/ev.
const GREEK_VOICELESS_NEXT = /^(?:[θκξπστφχψςΘΚΞΠΣΤΦΧΨ]|$|[\s\p{P}])/u;
const GREEK_GAMMA_GAMMA = /γγ|ΓΓ|Γγ/g;
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
  if (UKRAINIAN.test(result))
    result = result.replace(UKRAINIAN_TARGETS, (ch) => UKRAINIAN_LETTERS[ch] ?? ch);
  return result;
}

const COMBINING_MARK = /[\u0300-\u036f]/;
const GREEK_OR_CYRILLIC = /[\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f]/;
const NON_ASCII = /[^\x00-\x7f]/;

function toAsciiLower(text: string): string {
  return (NON_ASCII.test(text) ? anyAscii(text) : text).toLowerCase();
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const GREEK = /[\u0370-\u03ff\u1f00-\u1fff]/;

function romaniseGreekSpellings(text: string): string {
  return text
    .replace(
      GREEK_DIGRAPH,
      (
        pair: string,
        o: string | undefined,
        _u,
        vowel: string | undefined,
        upsilon: string,
        offset: number,
        whole: string,
      ) => {
        if (o) return o === o.toUpperCase() ? 'Ou' : 'ou';
        const voiceless = GREEK_VOICELESS_NEXT.test(
          whole.slice(offset + pair.length, offset + pair.length + 1),
        );
        const upper = upsilon === upsilon.toUpperCase();
        return `${vowel}${voiceless ? (upper ? 'Φ' : 'φ') : upper ? 'Β' : 'β'}`;
      },
    )
    .replace(GREEK_CHI, (chi) => (chi === 'Χ' ? 'Kh' : 'kh'))
    .replace(GREEK_GAMMA_GAMMA, (gg) => (gg[0] === 'Γ' ? 'Ng' : 'ng'));
}

/** Both umlaut spellings in one pass over the text. */
function umlautSpellings(text: string): { expanded: string; stripped: string } {
  let expanded = '';
  let stripped = '';
  for (const ch of text) {
    const long = EXPANDED[ch];
    if (long === undefined) {
      expanded += ch;
      stripped += ch;
    } else {
      expanded += long;
      stripped += STRIPPED[ch]!;
    }
  }
  return { expanded, stripped };
}

export function foldText(raw: string): FoldedText {
  if (ASCII_ONLY.test(raw)) {
    const folded = raw.toLowerCase();
    return { expanded: folded, stripped: folded, transliterated: false };
  }
  let text = COMBINING_MARK.test(raw) ? raw.normalize('NFC') : raw;
  if (GREEK_OR_CYRILLIC.test(text)) text = latiniseLookalikes(text);
  const transliterated = GREEK_OR_CYRILLIC.test(text);
  if (transliterated) {
    if (CYRILLIC.test(text)) {
      text = romaniseCyrillicSpellings(text);
      // Cyrillic ё: passports write e (Fedorov), English yo (Fyodor); both spellings are kept.
      if (/[ёЁ]/.test(text)) {
        return {
          expanded: toAsciiLower(text.replace(/ё/g, 'йo').replace(/Ё/g, 'Йo')),
          stripped: toAsciiLower(text),
          transliterated,
        };
      }
    }
    if (GREEK.test(text)) text = romaniseGreekSpellings(text);
  }
  const iso9 = transliterated ? undefined : readAsIso9(text);
  if (iso9 !== undefined) {
    return {
      expanded: toAsciiLower(umlautSpellings(iso9).expanded),
      stripped: toAsciiLower(umlautSpellings(text).stripped),
      transliterated,
    };
  }
  if (!UMLAUT_LIKE_ONE.test(text)) {
    const folded = toAsciiLower(text);
    return { expanded: folded, stripped: folded, transliterated };
  }
  const { expanded, stripped } = umlautSpellings(text);
  return { expanded: toAsciiLower(expanded), stripped: toAsciiLower(stripped), transliterated };
}
