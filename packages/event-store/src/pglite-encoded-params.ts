/**
 * Long string parameters encoded as UTF-8 on the caller's thread, before they cross to PGlite's
 * (pglite-thread.ts). An import's chunk sends each table its rows as one JSON text of up to megabytes:
 * posted as a string it was copied across, then measured and encoded by PGlite's serializer in
 * JavaScript on PGlite's thread, the one an import waits on (bench/RESULTS.md §5). Encoded here, its
 * bytes cross in one transferred buffer, not copied, and are written into the Bind message as they are
 * (pglite-prepared.ts).
 */

/** A parameter given as its UTF-8 text: `params[index]` is left null in the message. */
export interface EncodedParam {
  index: number;
  utf8: Uint8Array;
}

/**
 * Strings shorter than this cross as strings: a single check's statements carry short values, and a
 * transfer costs more than copying them.
 */
export const LONG_STRING_CHARS = 2048;

export interface ParamsForThread {
  params: unknown[];
  encoded?: EncodedParam[];
  /** To transfer with the message; the caller's thread cannot use it afterwards. */
  transfer: ArrayBuffer[];
}

export function encodeLongStrings(
  params: readonly unknown[],
  longChars: number = LONG_STRING_CHARS,
): ParamsForThread {
  let bytes = 0;
  for (const param of params)
    if (typeof param === 'string' && param.length >= longChars) bytes += Buffer.byteLength(param);
  if (bytes === 0) return { params: [...params], transfer: [] };
  // Not from Buffer's shared pool: the whole ArrayBuffer is transferred.
  const buffer = Buffer.from(new ArrayBuffer(bytes));
  const encoded: EncodedParam[] = [];
  let offset = 0;
  const sent = params.map((param, index) => {
    if (typeof param !== 'string' || param.length < longChars) return param;
    const length = buffer.write(param, offset, 'utf8');
    encoded.push({ index, utf8: new Uint8Array(buffer.buffer, offset, length) });
    offset += length;
    return null;
  });
  return { params: sent, encoded, transfer: [buffer.buffer] };
}

const decoder = new TextDecoder();

/** The parameters with every encoded one a string again (for statements PGlite's own `query` runs). */
export function decodeParams(
  params: readonly unknown[],
  encoded?: readonly EncodedParam[],
): unknown[] {
  const values = [...params];
  for (const { index, utf8 } of encoded ?? []) values[index] = decodeParam(utf8);
  return values;
}

export function decodeParam(utf8: Uint8Array): string {
  return decoder.decode(utf8);
}
