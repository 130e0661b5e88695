import { distance } from 'fastest-levenshtein';

/**
 * Levenshtein distance that also counts one swap of neighbouring letters as one edit (Luakshenko →
 * Lukashenko), as typists make it. Returns limit + 1 as soon as the distance is known to exceed limit.
 */
export function typingDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const d = distance(a, b);
  if (d === 2 && a.length === b.length && isOneSwap(a, b)) return 1;
  return d;
}

function isOneSwap(a: string, b: string): boolean {
  let first = -1;
  for (let i = 0; i < a.length; i++) {
    if (a.charCodeAt(i) === b.charCodeAt(i)) continue;
    if (first >= 0)
      return (
        i === first + 1 &&
        a[first] === b[i] &&
        a[i] === b[first] &&
        a.slice(i + 1) === b.slice(i + 1)
      );
    first = i;
  }
  return false;
}
