import { joinTokens, sameSpelling, type Token } from '../text/token.js';
import type { NameKind, TokenMatch, TokenMatcher } from './token-match.js';

export interface AlignedPair {
  readonly typed: number;
  readonly holder: number;
  readonly match: TokenMatch;
}

export interface Alignment {
  readonly pairs: readonly AlignedPair[];
  readonly unmatchedTyped: readonly number[];
  readonly unmatchedHolder: readonly number[];
  /** Matched words appear in a different order in the two names. */
  readonly reordered: boolean;
}

/**
 * Order-independent one-to-one alignment of words: exact spellings first, then the best remaining
 * similarity, ties broken in favour of words at the same relative position.
 */
export function alignTokens(
  typed: readonly Token[],
  holder: readonly Token[],
  matcher: TokenMatcher,
  kind: NameKind,
): Alignment {
  const typedTaken = new Array<boolean>(typed.length).fill(false);
  const holderTaken = new Array<boolean>(holder.length).fill(false);
  const pairs: AlignedPair[] = [];
  for (let t = 0; t < typed.length; t++) {
    // Prefer the same position, then the first free exact spelling.
    if (t < holder.length && !holderTaken[t] && sameSpelling(typed[t]!, holder[t]!)) {
      pairs.push({ typed: t, holder: t, match: matcher.match(typed[t]!, holder[t]!, kind)! });
      typedTaken[t] = holderTaken[t] = true;
      continue;
    }
    for (let h = 0; h < holder.length; h++) {
      if (!holderTaken[h] && sameSpelling(typed[t]!, holder[h]!)) {
        pairs.push({ typed: t, holder: h, match: matcher.match(typed[t]!, holder[h]!, kind)! });
        typedTaken[t] = holderTaken[h] = true;
        break;
      }
    }
  }
  if (pairs.length < typed.length && pairs.length < holder.length) {
    const candidates: { typed: number; holder: number; match: TokenMatch; offset: number }[] = [];
    for (let t = 0; t < typed.length; t++) {
      if (typedTaken[t]) continue;
      for (let h = 0; h < holder.length; h++) {
        if (holderTaken[h]) continue;
        const match = matcher.match(typed[t]!, holder[h]!, kind);
        if (match)
          candidates.push({
            typed: t,
            holder: h,
            match,
            offset: Math.abs(t / typed.length - h / holder.length),
          });
      }
    }
    candidates.sort((x, y) => y.match.factor - x.match.factor || x.offset - y.offset);
    for (const candidate of candidates) {
      if (typedTaken[candidate.typed] || holderTaken[candidate.holder]) continue;
      typedTaken[candidate.typed] = holderTaken[candidate.holder] = true;
      pairs.push({ typed: candidate.typed, holder: candidate.holder, match: candidate.match });
    }
  }
  pairs.sort((x, y) => x.typed - y.typed);
  let reordered = false;
  for (let i = 1; i < pairs.length; i++)
    if (pairs[i]!.holder < pairs[i - 1]!.holder) reordered = true;
  return {
    pairs,
    unmatchedTyped: indicesNotTaken(typedTaken),
    unmatchedHolder: indicesNotTaken(holderTaken),
    reordered,
  };
}

function indicesNotTaken(taken: readonly boolean[]): number[] {
  const free: number[] = [];
  for (let i = 0; i < taken.length; i++) if (!taken[i]) free.push(i);
  return free;
}

/**
 * Rejoins words that one side wrote apart (Vanden Berg / Vandenberg, Good Will / Goodwill): a run of
 * two or three adjacent words whose concatenation is a word of the other name becomes one word.
 */
export function rejoinSplitWords(
  words: readonly Token[],
  other: readonly Token[],
): { words: readonly Token[]; changed: boolean } {
  if (words.length < 2) return { words, changed: false };
  const spellings = new Set<string>();
  for (const word of other) spellings.add(word.text).add(word.alt);
  let result: Token[] | undefined;
  for (let i = 0; i < words.length; i++) {
    let mergedSize = 0;
    let text = words[i]!.text;
    let alt = words[i]!.alt;
    for (let size = 2; size <= 3 && i + size <= words.length; size++) {
      text += words[i + size - 1]!.text;
      alt += words[i + size - 1]!.alt;
      if (spellings.has(text) || spellings.has(alt)) mergedSize = size;
    }
    if (mergedSize === 0) {
      result?.push(words[i]!);
      continue;
    }
    result ??= words.slice(0, i);
    result.push(joinTokens(words.slice(i, i + mergedSize)));
    i += mergedSize - 1;
  }
  return result ? { words: result, changed: true } : { words, changed: false };
}

export function sameSequence(a: readonly Token[], b: readonly Token[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameSpelling(a[i]!, b[i]!)) return false;
  return true;
}
