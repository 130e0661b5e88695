/**
 * JSON read as it arrives, before JSON.parse builds it (hostile-input.ts): one pass over the bytes
 * for nesting deeper than any contract and for a key twice in one object.
 */

/** What a scan of raw JSON found: nesting deeper than allowed, or a key twice in one object. */
export type JsonHazard = { tooDeep: true } | { duplicateKey: string[] };

/** Up to this many keys an object's keys are compared byte by byte; beyond, as strings in a set. */
const FEW_KEYS = 16;

// The scan's state, kept between calls (a scan never yields, so one runs at a time). Per open array
// or object, outermost first: whether an object, its current index (array) or where its keys start
// (object), its latest key, and its keys as a set once it has many. Then the keys of every open
// object, innermost last, as byte ranges of the body, with the unescaped text of the escaped ones.
const isObject: boolean[] = [];
const counters: number[] = [];
const latestKey: number[] = [];
const keySets: (Set<string> | undefined)[] = [];
const keyStarts: number[] = [];
const keyEnds: number[] = [];
const keyTexts: (string | undefined)[] = [];

/**
 * One pass over raw JSON, no parse: whether it opens more than `maxDepth` arrays or objects inside
 * each other, or holds a key twice in one object (compared unescaped, as JSON.parse reads them), with
 * the key's path. Malformed JSON is scanned without error; JSON.parse refuses it after.
 */
export function scanJson(raw: Buffer, maxDepth: number): JsonHazard | undefined {
  try {
    return scan(raw, maxDepth);
  } finally {
    keySets.length = 0;
    if (keyStarts.length > 1024) keyStarts.length = keyEnds.length = keyTexts.length = 0;
  }
}

function scan(raw: Buffer, maxDepth: number): JsonHazard | undefined {
  let depth = 0;
  let keyCount = 0;
  let expectKey = false;
  for (let index = 0; index < raw.length; index++) {
    const byte = raw[index];
    if (byte === 0x22) {
      const start = index + 1;
      let escaped = false;
      for (index = start; index < raw.length; index++) {
        const inString = raw[index];
        if (inString === 0x22) break;
        if (inString === 0x5c) {
          escaped = true;
          index++; // skip the escaped byte
        }
      }
      if (!expectKey) continue;
      expectKey = false;
      const level = depth - 1;
      const key = keyCount++;
      keyStarts[key] = start;
      keyEnds[key] = index;
      keyTexts[key] = escaped ? unescaped(raw, start, index) : undefined;
      latestKey[level] = key;
      if (isRepeated(raw, level, key)) return { duplicateKey: pathTo(raw, level) };
    } else if (byte === 0x7b || byte === 0x5b) {
      if (depth === maxDepth) return { tooDeep: true };
      expectKey = byte === 0x7b;
      isObject[depth] = expectKey;
      counters[depth] = expectKey ? keyCount : 0;
      keySets[depth] = undefined;
      depth++;
    } else if (byte === 0x7d || byte === 0x5d) {
      if (depth === 0) continue;
      depth--;
      if (isObject[depth]) keyCount = counters[depth] as number;
      keySets[depth] = undefined;
      expectKey = false;
    } else if (byte === 0x2c && depth > 0) {
      if (isObject[depth - 1]) expectKey = true;
      else (counters[depth - 1] as number)++;
    }
  }
  return undefined;
}

/** Whether the object at `level` has `key` already: byte by byte while it has few, then in a set. */
function isRepeated(raw: Buffer, level: number, key: number): boolean {
  const from = counters[level] as number;
  let keySet = keySets[level];
  if (keySet === undefined) {
    if (key - from < FEW_KEYS) {
      for (let other = from; other < key; other++) if (sameKey(raw, other, key)) return true;
      return false;
    }
    keySet = new Set();
    for (let other = from; other < key; other++) keySet.add(keyText(raw, other));
    keySets[level] = keySet;
  }
  const text = keyText(raw, key);
  if (keySet.has(text)) return true;
  keySet.add(text);
  return false;
}

function sameKey(raw: Buffer, one: number, other: number): boolean {
  if (keyTexts[one] !== undefined || keyTexts[other] !== undefined)
    return keyText(raw, one) === keyText(raw, other);
  // Unescaped, equal text is equal UTF-8 (bytes that are not UTF-8 read as U+FFFD, refused after).
  const start = keyStarts[one] as number;
  const otherStart = keyStarts[other] as number;
  const length = (keyEnds[one] as number) - start;
  if ((keyEnds[other] as number) - otherStart !== length) return false;
  for (let offset = 0; offset < length; offset++)
    if (raw[start + offset] !== raw[otherStart + offset]) return false;
  return true;
}

function keyText(raw: Buffer, key: number): string {
  return keyTexts[key] ?? raw.toString('utf8', keyStarts[key], keyEnds[key]);
}

/** An escaped key as JSON.parse reads it (`"\u0061"` is `a`). */
function unescaped(raw: Buffer, start: number, end: number): string {
  try {
    return JSON.parse(raw.toString('utf8', start - 1, end + 1)) as string;
  } catch {
    return raw.toString('utf8', start, end); // malformed: JSON.parse refuses the body after
  }
}

/** The path to the latest key of the object at `level`: each outer key or index, then that key. */
function pathTo(raw: Buffer, level: number): string[] {
  const path: string[] = [];
  for (let outer = 0; outer <= level; outer++)
    path.push(
      isObject[outer]
        ? keyText(raw, latestKey[outer] as number)
        : String(counters[outer] as number),
    );
  return path;
}
