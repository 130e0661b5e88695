export const VALUE_PREFIX = 'pd1';

/** The parts of `pd1:<subjectId>:<iv>:<ciphertext>:<tag>` (all binary parts base64url). */
export interface EncryptedValue {
  subjectId: string;
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

export const IV_BYTES = 12;
export const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export function formatValue(value: EncryptedValue): string {
  return [
    VALUE_PREFIX,
    value.subjectId,
    encode(value.iv),
    encode(value.ciphertext),
    encode(value.tag),
  ].join(':');
}

/** The parts of a `pd1:` value, or undefined when the string is not one. */
export function parseValue(value: unknown): EncryptedValue | undefined {
  if (typeof value !== 'string') return undefined;
  const parts = value.split(':');
  if (parts.length !== 5) return undefined;
  const [prefix, subjectId, iv, ciphertext, tag] = parts as [
    string,
    string,
    string,
    string,
    string,
  ];
  if (prefix !== VALUE_PREFIX || subjectId.length === 0) return undefined;
  if (!BASE64URL.test(iv) || !BASE64URL.test(ciphertext) || !BASE64URL.test(tag)) return undefined;
  const parsed = { subjectId, iv: decode(iv), ciphertext: decode(ciphertext), tag: decode(tag) };
  if (parsed.iv.length !== IV_BYTES || parsed.tag.length !== TAG_BYTES) return undefined;
  return parsed;
}

/** Additional authenticated data: binds the ciphertext to its format version and subject. */
export function associatedData(subjectId: string): Buffer {
  return Buffer.from(`${VALUE_PREFIX}:${subjectId}`, 'utf8');
}

function encode(bytes: Buffer): string {
  return bytes.toString('base64url');
}

function decode(text: string): Buffer {
  return Buffer.from(text, 'base64url');
}
