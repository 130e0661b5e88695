import type { Token } from './token.js';

// Spellings that different transliteration systems (English, German, French, Polish, ISO 9) use for
// the same Cyrillic or Greek letter fold to one form: Tschechow / Chekhov / Czechow → cekov,
// Sergej / Sergey / Sergei → sergei, Selenskyj / Zelenskyy → zelenski (with the z/s rule below).
const RULES: readonly (readonly [RegExp, string])[] = [
  [/shch|szcz/g, 's'],
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

export function looseKeyOf(token: Token): string {
  if (token.loose === undefined) token.loose = looseKey(token.alt);
  return token.loose;
}
