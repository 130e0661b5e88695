// Cyrillic and Greek letters that look like Latin ones, after the Unicode confusables data (UTS #39), for
// names typed with a stray letter from another keyboard layout ("Hаns" with a Cyrillic а).
const LATIN_LOOKALIKES: Readonly<Record<string, string>> = {
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  һ: 'h',
  ԁ: 'd',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  ο: 'o',
};
const LATIN_LETTER = /[A-Za-z]/;
const WORD = /[\p{L}\p{M}]+/gu;

/**
 * Words written mostly in Latin letters with a Cyrillic or Greek look-alike among them: the look-alikes
 * become the Latin letters they stand for. Words wholly in Cyrillic or Greek are left alone.
 */
export function latiniseLookalikes(text: string): string {
  if (!LATIN_LETTER.test(text)) return text;
  return text.replace(WORD, (word) => {
    if (!LATIN_LETTER.test(word)) return word;
    let latin = '';
    for (const ch of word) latin += LATIN_LOOKALIKES[ch] ?? ch;
    return latin;
  });
}
