import { CONNECTORS, LEADING_TITLES, ONE_LETTER_CONNECTORS } from './tables/lexicon.js';
import type { Token } from './text/token.js';

/**
 * Conjunctions of EU languages that also are, or look like, words of a person's name: Latin
 * "kai" (Greek και) and Korean "In" or "Un" are given names, Dutch "ir." is a title. They join two
 * holders only when both sides read as people's names.
 */
const AMBIGUOUS_CONNECTORS: ReadonlySet<string> = new Set([
  'ja', // et, fi
  'es', // hu és
  'si', // ro și
  'in', // sl
  'un', // lv
  'ir', // lt
  'kai', // el και
]);

export interface GivenNames {
  isGivenName(token: Token): boolean;
}

/**
 * Splits a name into the names of the people it joins: "Anna Kowalska i Jan Kowalski" is two,
 * and so is "Erika und Hans Mustermann". Unambiguous connectors (&, and, und, et, ...) always
 * split; the others only between two people's names, so that "Jan A. Kowalski" and "Maria E
 * Rossi" stay one person. Returns one part when nothing splits.
 */
export function splitJointHolders(
  tokens: readonly Token[],
  dotted: ReadonlySet<Token>,
  names: GivenNames,
): Token[][] {
  const parts: Token[][] = [[]];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const current = parts[parts.length - 1]!;
    if (CONNECTORS.has(token.text) || joinsTwoPeople(tokens, i, current, dotted, names)) {
      if (current.length > 0) parts.push([]);
    } else {
      current.push(token);
    }
  }
  return parts;
}

function isCandidate(token: Token, dotted: ReadonlySet<Token>): boolean {
  if (AMBIGUOUS_CONNECTORS.has(token.text)) return true;
  // A conjunction is never abbreviated: "A." is an initial.
  return ONE_LETTER_CONNECTORS.has(token.text) && !dotted.has(token);
}

function joinsTwoPeople(
  tokens: readonly Token[],
  at: number,
  before: readonly Token[],
  dotted: ReadonlySet<Token>,
  names: GivenNames,
): boolean {
  const word = tokens[at]!;
  if (!isCandidate(word, dotted)) return false;
  const left = before.filter((t) => !LEADING_TITLES.has(t.text));
  const right: Token[] = [];
  for (let i = at + 1; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (CONNECTORS.has(token.text) || isCandidate(token, dotted)) break;
    right.push(token);
  }
  // The right side is a whole name: given name and surname, not an initial.
  if (right.length < 2 || right[0]!.text.length === 1) return false;
  if (left.length === 0) return false;
  // "Erika und Hans Mustermann": a lone given name on the left borrows the surname later; a
  // connector that is itself a given name (Kai) is then more likely a middle name.
  if (left.length === 1 && (!names.isGivenName(left[0]!) || names.isGivenName(word))) return false;
  if (word.text.length > 1) return true;
  // A one-letter word is a conjunction only between two names that each carry a given name:
  // "Anna Maria E Rossi Bianchi" has an initial between given names and a double surname.
  return left.some((t) => names.isGivenName(t)) && right.some((t) => names.isGivenName(t));
}
