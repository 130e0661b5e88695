// ISO 9 writes the Cyrillic iotated vowels and a few other letters with diacritics (Ûlìâ for Юлія,
// Natalʹâ for Наталья, Ŝerbakov for Щербаков); dropping the accents loses the j/y they stand for.
const ISO9_LETTERS: Readonly<Record<string, string>> = {
  â: 'ja',
  û: 'ju',
  ê: 'je',
  ì: 'i',
  ï: 'ji',
  ŝ: 'shch',
  ʹ: '',
  ʺ: '',
  Â: 'Ja',
  Û: 'Ju',
  Ê: 'Je',
  Ì: 'I',
  Ï: 'Ji',
  Ŝ: 'Shch',
};
const ANY_ISO9_LETTER = /[ûŝʹʺìâêÛŜÌÂÊ]/;
/** Letters hardly used outside ISO 9 in names of the EU; â and ê also count next to a háček (Žâ). */
const ISO9_ONLY = /[ûŝʹʺìÛŜÌ]/;
const ISO9_VOWEL = /[âêÂÊ]/;
const HACEK = /[žčšŽČŠ]/;
const ISO9_TARGETS = /[âûêìïŝʹʺÂÛÊÌÏŜ]/g;

/** The name read as ISO 9 romanisation of Cyrillic, or undefined when it does not look like one. */
export function readAsIso9(text: string): string | undefined {
  if (!ANY_ISO9_LETTER.test(text)) return undefined;
  if (!ISO9_ONLY.test(text) && !(ISO9_VOWEL.test(text) && HACEK.test(text))) return undefined;
  return text.replace(ISO9_TARGETS, (letter) => ISO9_LETTERS[letter] ?? letter);
}
