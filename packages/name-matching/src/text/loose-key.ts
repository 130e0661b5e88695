import type { Token } from './token.js';

// Spellings that different transliteration systems (English, German, French, Polish, ISO 9) use for
// the same Cyrillic or Greek letter fold to one form: Tschechow / Chekhov / Czechow → cekov,
// Sergej / Sergey / Sergei → sergei, Selenskyj / Zelenskyy → zelenski. One pass over the word, longest
// spelling first, because this runs for most word pairs that are not spelt alike.
const SPELLINGS: readonly (readonly [string, string])[] = [
  ['shch', 's'],
  ['szcz', 's'],
  ['tsch', 'c'],
  ['sht', 's'],
  ['sch', 's'],
  ['tch', 'c'],
  ['cz', 'c'],
  ['sh', 's'],
  ['sz', 's'],
  ['zh', 'z'],
  ['kh', 'h'],
  ['ch', 'c'],
  ['ts', 'c'],
  ['tz', 'c'],
  ['ph', 'f'],
  ['th', 't'],
  ['ck', 'k'],
  ['ou', 'u'],
];
const BY_FIRST_LETTER = new Map<string, (readonly [string, string])[]>();
for (const spelling of SPELLINGS) {
  const list = BY_FIRST_LETTER.get(spelling[0][0]!) ?? [];
  list.push(spelling);
  BY_FIRST_LETTER.set(spelling[0][0]!, list);
}
const SINGLE: Readonly<Record<string, string>> = { q: 'k', x: 'ks', w: 'v', y: 'i', j: 'i' };
const HARD_C_FOLLOWERS = 'aoulr';

export function looseKey(text: string): string {
  let folded = '';
  for (let i = 0; i < text.length;) {
    const ch = text[i]!;
    const candidates = BY_FIRST_LETTER.get(ch);
    let replaced = false;
    if (candidates) {
      for (const [spelling, replacement] of candidates) {
        if (text.startsWith(spelling, i)) {
          folded += replacement;
          i += spelling.length;
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) {
      // Lucas / Lukas, Carl / Karl, Oscar / Oskar, Claudia / Klaudia: a hard c is a k.
      const next = text[i + 1];
      folded +=
        ch === 'c' && (next === undefined || HARD_C_FOLLOWERS.includes(next))
          ? 'k'
          : (SINGLE[ch] ?? ch);
      i++;
    }
  }
  let key = '';
  for (let i = 0; i < folded.length; i++) {
    const ch = folded[i]!;
    if (key.length > 0 && key[key.length - 1] === ch) continue; // doubled letters count once
    key += ch;
  }
  // German transliteration writes Cyrillic З as s at the start of a word (Selenskyj).
  return key.startsWith('s') ? 'z' + key.slice(1) : key;
}

// Words recur (given names, surnames): keys are kept in a memo that is emptied when it grows too large.
const MEMO_LIMIT = 50_000;
const memo = new Map<string, string>();

export function looseKeyOf(token: Token): string {
  if (token.loose === undefined) {
    let key = memo.get(token.alt);
    if (key === undefined) {
      if (memo.size >= MEMO_LIMIT) memo.clear();
      key = looseKey(token.alt);
      memo.set(token.alt, key);
    }
    token.loose = key;
  }
  return token.loose;
}

const SIBILANTS = /[zc]/g;
// Ukrainian and Belarusian г is h, Russian г is g: Hrushevskyi / Grushevsky.
const VELARS = /g/g;
/**
 * Looser still, for a Greek or Cyrillic name against a Latin one: z, c and s are one (Kusnezow /
 * Kuznetsov). A Latin "ch" may stand for Х as in German (Michail), so Latin words get a second key.
 */
export function translitKeysOf(token: Token): readonly string[] {
  if (token.translit === undefined) {
    const keyOf = (text: string): string =>
      looseKey(text).replace(SIBILANTS, 's').replace(VELARS, 'h');
    const keys = new Set([keyOf(token.alt), keyOf(token.text)]);
    if (!token.transliterated && token.alt.includes('ch'))
      keys.add(keyOf(token.alt.replace(/ch/g, 'kh')));
    token.translit = [...keys];
  }
  return token.translit;
}

export function sameTransliteration(a: Token, b: Token): boolean {
  const keysB = translitKeysOf(b);
  return translitKeysOf(a).some((key) => keysB.includes(key));
}
