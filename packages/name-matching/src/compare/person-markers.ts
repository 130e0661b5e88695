import type { GivenNames } from '../joint-holders.js';
import {
  COMPOUND_FIRST_HALVES,
  COMPOUND_GIVEN_NAMES,
  GENDER_MIDDLE_NAMES,
  WIFE_OF_MIN_STEM,
  WIFE_OF_SUFFIX,
} from '../tables/person-markers.js';
import { sameSpelling, type Token } from '../text/token.js';
import type { Alignment } from './align.js';

function sexesOf(tokens: readonly Token[]): Set<string> | undefined {
  let sexes: Set<string> | undefined;
  for (let i = 1; i < tokens.length - 1; i++) {
    const sex = GENDER_MIDDLE_NAMES.get(tokens[i]!.text);
    if (sex) (sexes ??= new Set()).add(sex);
  }
  return sexes;
}

/** Nguyễn Thị Lan and Nguyễn Văn Lan: gender middle names of both sexes, none shared. */
function genderDiffers(a: readonly Token[], b: readonly Token[]): boolean {
  const sexesA = sexesOf(a);
  if (!sexesA) return false;
  const sexesB = sexesOf(b);
  return sexesB !== undefined && ![...sexesA].some((sex) => sexesB.has(sex));
}

const hasWord = (tokens: readonly Token[], text: string): boolean =>
  tokens.some((t) => t.text === text || t.alt === text);

/** Kovács Jánosné (wife of János Kovács) against Kovács János: the stem on one side, its -né form on the other. */
function wifeOfOneSided(a: readonly Token[], b: readonly Token[]): boolean {
  for (const token of a) {
    const text = token.alt;
    if (text.length < WIFE_OF_MIN_STEM + WIFE_OF_SUFFIX.length || !text.endsWith(WIFE_OF_SUFFIX))
      continue;
    const stem = text.slice(0, -WIFE_OF_SUFFIX.length);
    if (hasWord(b, stem) && !hasWord(a, stem) && !hasWord(b, text)) return true;
  }
  return false;
}

/** María José against José or María; Jean-Pierre against Pierre: one half of a compound given name. */
function compoundHalved(a: readonly Token[], b: readonly Token[], names: GivenNames): boolean {
  for (let i = 0; i + 2 < a.length; i++) {
    const first = a[i]!;
    const second = a[i + 1]!;
    const compound =
      (COMPOUND_FIRST_HALVES.has(first.alt) &&
        COMPOUND_GIVEN_NAMES.has(`${first.alt} ${second.alt}`)) ||
      (first.hyphenNext === true && names.isGivenName(first) && names.isGivenName(second));
    if (!compound) continue;
    const hasFirst = b.some((t) => sameSpelling(t, first));
    const hasSecond = b.some((t) => sameSpelling(t, second));
    if (hasFirst === hasSecond) continue;
    // "Jean P. Martin": the other half is there as an initial.
    const missing = hasFirst ? second : first;
    if (!b.some((t) => t.text.length === 1 && t.text === missing.text[0])) return true;
  }
  return false;
}

/**
 * Name parts that mark another person than the holder: gender middle names of the other sex, a
 * "wife of" form on one side only, one half of a compound given name.
 */
export function marksAnotherPerson(
  typed: readonly Token[],
  holder: readonly Token[],
  names: GivenNames,
): boolean {
  return (
    genderDiffers(typed, holder) ||
    wifeOfOneSided(typed, holder) ||
    wifeOfOneSided(holder, typed) ||
    compoundHalved(typed, holder, names) ||
    compoundHalved(holder, typed, names)
  );
}

/** Kim Min-jun against Kim Jun-min: the two halves of a hyphenated given name matched the other way round. */
export function hyphenatedOrderSwapped(
  typed: readonly Token[],
  holder: readonly Token[],
  alignment: Alignment,
): boolean {
  const holderOf = new Map<number, number>();
  const typedOf = new Map<number, number>();
  for (const pair of alignment.pairs) {
    holderOf.set(pair.typed, pair.holder);
    typedOf.set(pair.holder, pair.typed);
  }
  const swapped = (tokens: readonly Token[], other: Map<number, number>): boolean => {
    for (let i = 0; i + 1 < tokens.length; i++) {
      if (!tokens[i]!.hyphenNext) continue;
      const left = other.get(i);
      const right = other.get(i + 1);
      if (left !== undefined && right !== undefined && right < left) return true;
    }
    return false;
  };
  return swapped(typed, holderOf) || swapped(holder, typedOf);
}
