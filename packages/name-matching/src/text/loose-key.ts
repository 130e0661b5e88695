import type { Token } from './token.js';

// Spellings that different transliteration systems (English, German, French, Polish, ISO 9) use for
// the same Cyrillic or Greek letter fold to one form: Tschechow / Chekhov / Czechow → cekov,
// Sergej / Sergey / Sergei → sergei, Selenskyj / Zelenskyy → zelenski (with the z/s rule below).
const RULES: readonly (readonly [RegExp, string])[] = [
  [/shch|szcz|sht/g, 's'],
  [/tsch|tch|cz/g, 'c'],
  [/sch|sh|sz/g, 's'],
  [/zh/g, 'z'],
  [/kh/g, 'h'],
  [/ch/g, 'c'],
  [/ts|tz/g, 'c'],
  [/ph/g, 'f'],
  [/th/g, 't'],
  [/ck|q/g, 'k'],
  [/ks|x/g, 'ks'],
  [/w/g, 'v'],
  [/[yj]/g, 'i'],
  [/ou/g, 'u'],
  [/([a-z])\1+/g, '$1'],
];
const INITIAL_S = /^s/;

export function looseKey(text: string): string {
  let key = text;
  for (const [pattern, replacement] of RULES) key = key.replace(pattern, replacement);
  // German transliteration writes Cyrillic З as s at the start of a word (Selenskyj).
  return key.replace(INITIAL_S, 'z');
}

const SIBILANTS = /[zc]/g;
/**
 * Looser still, for a Greek or Cyrillic name against a Latin one: z, c and s are one (Kusnezow /
 * Kuznetsov). A Latin "ch" may stand for Х as in German (Michail), so Latin words get a second key.
 */
export function translitKeysOf(token: Token): readonly string[] {
  if (token.translit === undefined) {
    const key = looseKeyOf(token).replace(SIBILANTS, 's');
    const germanKey = token.transliterated || !token.alt.includes('ch') ? key : looseKey(token.alt.replace(/ch/g, 'kh')).replace(SIBILANTS, 's');
    token.translit = germanKey === key ? [key] : [key, germanKey];
  }
  return token.translit;
}

export function sameTransliteration(a: Token, b: Token): boolean {
  const keysB = translitKeysOf(b);
  return translitKeysOf(a).some((key) => keysB.includes(key));
}

export function looseKeyOf(token: Token): string {
  if (token.loose === undefined) token.loose = looseKey(token.alt);
  return token.loose;
}
