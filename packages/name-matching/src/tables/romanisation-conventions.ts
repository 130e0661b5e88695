// Letter groups by which national conventions romanise Cyrillic (and, for x, Arabic) differently from
// the English-based standards (BGN/PCGN, passports), each mapped to the BGN/PCGN spelling, and the
// letter-for-letter ELOT 743 spelling of Greek against the phonetic one. Written for this project
// (Apache-2.0) from the published French (usage of the French press and IGN) and Dutch (Nederlandse
// Taalunie) conventions, Azeri and Uzbek x for kh, and ELOT 743; German and Polish spellings are already
// folded by the loose key, ISO 9 diacritics are read when folding (text/iso9.ts). Sources:
// data/LICENSES.md.

export interface RomanisationConvention {
  /** Letter groups, longest first, and the BGN/PCGN spelling of each (for Greek: the phonetic one). */
  readonly groups: readonly (readonly [string, string])[];
  /** Only words that look written in this convention's language are read by it. */
  readonly appliesTo?: RegExp;
}

export const ROMANISATION_CONVENTIONS: readonly RomanisationConvention[] = [
  // French: Joukov, Tchekhov, Chevtchenko, Khrouchtchev
  {
    groups: [
      ['chtch', 'shch'],
      ['tch', 'ch'],
      ['ch', 'sh'],
      ['dj', 'dzh'],
      ['j', 'zh'],
      ['ou', 'u'],
    ],
  },
  // Dutch: Zjoekov, Tsjechov, Sjevtsjenko
  {
    groups: [
      ['sjtsj', 'shch'],
      ['tsj', 'ch'],
      ['sj', 'sh'],
      ['zj', 'zh'],
      ['oe', 'u'],
      ['ch', 'kh'],
      ['j', 'y'],
    ],
  },
  // x for kh: Xalid, Xamidov
  { groups: [['x', 'kh']] },
  // Greek, ELOT 743 letter for letter against the phonetic spelling: Vasileiou / Vassiliou, Chatzis / Hatzis
  {
    appliesTo: /(?:os|is|ou|as|es)$/,
    groups: [
      ['ei', 'i'],
      ['oi', 'i'],
      ['ai', 'e'],
      ['ou', 'u'],
      ['kh', 'h'],
      ['ch', 'h'],
      ['y', 'i'],
    ],
  },
];
