import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  randomFillSync,
} from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { SqlExecutor } from '@vop/event-store';
import { TamperedValueError } from './errors.js';
import { assertValidSubjectId } from './subject-id.js';
import type { KeysForOptions, SubjectKeyState, SubjectKeyStore } from './subject-key-store.js';
import {
  associatedData,
  type EncryptedValue,
  formatValue,
  IV_BYTES,
  parseValue,
  TAG_BYTES,
  VALUE_PREFIX,
} from './value-format.js';

const ALGORITHM = 'aes-256-gcm';
/** Holder names kept opened (`keepOpened`): a million accounts need not all be; the ones checked often are. */
const MAX_KEPT_OPENED = 20_000;

/** A value to decrypt: kept opened (plaintext), or its parts to open. */
type OpeningValue =
  | { value: string; subjectId: string; plaintext: string; parts?: undefined }
  | { value: string; subjectId: string; plaintext?: undefined; parts: EncryptedValue };

/** The fields after decryption: a shredded string becomes undefined, a shredded array becomes []. */
export type DecryptedFields<T, K extends keyof T> = {
  [P in keyof T]: P extends K ? (T[P] extends readonly string[] ? T[P] : T[P] | undefined) : T[P];
};

/**
 * Encrypts personal fields with AES-256-GCM under the key of their subject (see SubjectKeyStore).
 * Values are self-describing strings `pd1:<subjectId>:<iv>:<ciphertext>:<tag>`, safe in JSON, events and
 * Kafka messages.
 */
export class FieldCipher {
  /**
   * Values opened with `keepOpened`, by value: their plain text and subject. Used only while the
   * subject's key is still live in the key store (checked on every call), so an erasure reaches them
   * as it reaches the cached key.
   */
  private readonly opened: LRUCache<string, { subjectId: string; plaintext: string }>;

  constructor(
    private readonly keys: SubjectKeyStore,
    maxKeptOpened = MAX_KEPT_OPENED,
  ) {
    this.opened = new LRUCache({ max: maxKeptOpened });
  }

  /** How many values are kept opened (`keepOpened` of decryptMany). */
  get keptOpened(): number {
    return this.opened.size;
  }

  /** Throws SubjectKeyDestroyedError when the subject was erased. */
  async encrypt(subjectId: string, plaintext: string, tx?: SqlExecutor): Promise<string> {
    assertValidSubjectId(subjectId);
    if (typeof plaintext !== 'string')
      throw new TypeError('Only strings can be encrypted as personal data');
    const key = await this.keys.keyFor(subjectId, tx);
    return seal(subjectId, key, plaintext);
  }

  /**
   * The plaintext, or undefined when the subject's key was destroyed (the shredded case) or never existed.
   * Throws TamperedValueError when authentication fails and TypeError when value is not a `pd1:` value.
   */
  async decrypt(value: string, tx?: SqlExecutor): Promise<string | undefined> {
    const [plaintext] = await this.decryptMany([value], tx);
    return plaintext;
  }

  /**
   * Decrypts many values with one key lookup for all their subjects; results in input order. A value that
   * is not encrypted (written before encryption, or empty) comes back unchanged, as in decryptFields; a
   * malformed `pd1:` value throws.
   *
   * `keepOpened`: for values read again and again (the account projection's holder names, decrypted for
   * every check: an AES-GCM open and the value's parsing each time, bench/RESULTS.md §1
   * 22:26): their plain text is kept, the `maxKeptOpened` used last, and given back only while the
   * key store still holds the subject's key as live, which is what opening them again would need.
   */
  async decryptMany(
    values: readonly string[],
    tx?: SqlExecutor,
    options: { keepOpened?: boolean } = {},
  ): Promise<(string | undefined)[]> {
    const entries = values.map((value): OpeningValue | undefined => {
      const kept = options.keepOpened === true ? this.opened.get(value) : undefined;
      if (kept !== undefined)
        return { value, subjectId: kept.subjectId, plaintext: kept.plaintext };
      const parts = parseValue(value);
      if (parts === undefined && value.startsWith(`${VALUE_PREFIX}:`))
        throw new TypeError('Malformed encrypted personal-data value');
      return parts === undefined ? undefined : { value, subjectId: parts.subjectId, parts };
    });
    const subjects = entries.filter((entry) => entry !== undefined).map((entry) => entry.subjectId);
    const keys =
      subjects.length === 0
        ? new Map<string, SubjectKeyState>()
        : await this.keys.lookup(subjects, tx);
    return entries.map((entry, index) => {
      if (entry === undefined) return values[index];
      const known = keys.get(entry.subjectId);
      if (known === undefined || known.state === 'destroyed') {
        this.opened.delete(entry.value);
        return undefined;
      }
      if (entry.plaintext !== undefined) return entry.plaintext;
      const plaintext = open(known.key, entry.parts);
      if (options.keepOpened === true)
        this.opened.set(entry.value, { subjectId: entry.subjectId, plaintext });
      return plaintext;
    });
  }

  isEncrypted(value: unknown): value is string {
    return isEncrypted(value);
  }

  /**
   * A copy of obj whose named fields (strings or string arrays) are encrypted under subjectId; null and
   * undefined fields are kept as they are. Already encrypted values are not encrypted twice.
   */
  async encryptFields<T extends object, K extends keyof T>(
    obj: T,
    fields: readonly K[],
    subjectId: string,
    tx?: SqlExecutor,
  ): Promise<T> {
    const copy: T = { ...obj };
    for (const field of fields) {
      const value: unknown = obj[field];
      if (value === undefined || value === null) continue;
      if (typeof value === 'string') {
        copy[field] = (await this.encryptOnce(subjectId, value, tx)) as T[K];
      } else if (isStringArray(value)) {
        const encrypted: string[] = [];
        for (const item of value) encrypted.push(await this.encryptOnce(subjectId, item, tx));
        copy[field] = encrypted as T[K];
      } else {
        throw new TypeError(
          `Personal field ${String(field)} must be a string or an array of strings`,
        );
      }
    }
    return copy;
  }

  /**
   * A copy of obj whose named fields are decrypted: a shredded string field becomes undefined and shredded
   * array items are dropped (a fully shredded array is []). Values that are not `pd1:` values pass through
   * unchanged, so records written before encryption was introduced still read.
   */
  async decryptFields<T extends object, K extends keyof T>(
    obj: T,
    fields: readonly K[],
    tx?: SqlExecutor,
  ): Promise<DecryptedFields<T, K>> {
    const encrypted: string[] = [];
    for (const field of fields) {
      const value: unknown = obj[field];
      if (isEncrypted(value)) encrypted.push(value);
      else if (isStringArray(value)) encrypted.push(...value.filter(isEncrypted));
    }
    const decrypted = await this.decryptMany(encrypted, tx);
    const plaintexts = new Map<string, string | undefined>(
      encrypted.map((value, index) => [value, decrypted[index]]),
    );
    const copy = { ...obj } as Record<PropertyKey, unknown>;
    for (const field of fields) {
      const value: unknown = obj[field];
      if (isEncrypted(value)) copy[field] = plaintexts.get(value);
      else if (isStringArray(value)) {
        copy[field] = value
          .map((item) => (isEncrypted(item) ? plaintexts.get(item) : item))
          .filter((item): item is string => item !== undefined);
      }
    }
    return copy as DecryptedFields<T, K>;
  }

  /**
   * For bulk writes: the keys of many subjects fetched (and created) at once, then encryption and keyed
   * digests without further queries. A digest made with a subject's key dies with it on erasure.
   */
  async sealerFor(
    subjectIds: Iterable<string>,
    tx?: SqlExecutor,
    options?: KeysForOptions,
  ): Promise<SubjectSealer> {
    return sealerWith(await this.keys.keysFor(subjectIds, tx, options));
  }

  /**
   * sealerFor without waiting for the made subjects' new keys to be stored (SubjectKeyStore.keysAhead):
   * nothing sealed with it may be written before `keysStored` resolves, and when it rejects
   * (SubjectKeyRaceError) nothing sealed for those subjects may be written at all.
   */
  async sealerAhead(
    subjectIds: Iterable<string>,
    tx?: SqlExecutor,
    options?: KeysForOptions,
  ): Promise<{ sealer: SubjectSealer; keysStored: Promise<void> }> {
    const { keys, stored } = await this.keys.keysAhead(subjectIds, tx, options);
    return { sealer: sealerWith(keys), keysStored: stored };
  }

  /**
   * Keyed digests (HMAC-SHA256, base64url) under one subject's key, fetched once (and cached as any
   * live key). For a deployment-wide key (`ACCOUNT_FINGERPRINT_SUBJECT`): unlike a holder's, such a
   * digest does not die with the holder's key, so whoever keeps one clears it on erasure.
   */
  async digesterFor(subjectId: string, tx?: SqlExecutor): Promise<(text: string) => string> {
    assertValidSubjectId(subjectId);
    // A key object made once: given the key's bytes, every HMAC made one of its own (1.6× the time).
    const key = createSecretKey(await this.keys.keyFor(subjectId, tx));
    return (text) => createHmac('sha256', key).update(text).digest('base64url');
  }

  private async encryptOnce(subjectId: string, value: string, tx?: SqlExecutor): Promise<string> {
    return isEncrypted(value) ? value : this.encrypt(subjectId, value, tx);
  }
}

/** Encryption and keyed digests with these subjects' keys. */
function sealerWith(keys: ReadonlyMap<string, Buffer>): SubjectSealer {
  const keyOf = (subjectId: string): Buffer => {
    const key = keys.get(subjectId);
    if (key === undefined) throw new Error('sealerFor was not given this subject');
    return key;
  };
  return {
    encryptFields<T extends object, K extends keyof T>(
      obj: T,
      fields: readonly K[],
      subjectId: string,
    ): T {
      const key = keyOf(subjectId);
      const once = (value: string) => (isEncrypted(value) ? value : seal(subjectId, key, value));
      const copy: T = { ...obj };
      for (const field of fields) {
        const value: unknown = obj[field];
        if (value === undefined || value === null) continue;
        if (typeof value === 'string') copy[field] = once(value) as T[K];
        else if (isStringArray(value)) copy[field] = value.map(once) as T[K];
        else throw new TypeError(`Personal field ${String(field)} must be a string or strings`);
      }
      return copy;
    },
    digest: (subjectId, text) =>
      createHmac('sha256', keyOf(subjectId)).update(text).digest('base64url'),
  };
}

/** Encryption and keyed digests with keys already fetched (FieldCipher.sealerFor). */
export interface SubjectSealer {
  encryptFields<T extends object, K extends keyof T>(
    obj: T,
    fields: readonly K[],
    subjectId: string,
  ): T;
  /** HMAC-SHA256 of text under the subject's key (base64url). */
  digest(subjectId: string, text: string): string;
}

/** True for a well-formed `pd1:` value (it says nothing about whether its key still exists). */
export function isEncrypted(value: unknown): value is string {
  return parseValue(value) !== undefined;
}

/** True for a well-formed `pd1:` value sealed under `subjectId`'s key. */
export function isSealedUnder(value: unknown, subjectId: string): value is string {
  return parseValue(value)?.subjectId === subjectId;
}

/**
 * IVs cut from one buffer of random bytes refilled when used up: a `randomBytes(12)` per value was one
 * call into OpenSSL's generator (and a `getpid`) each, several per verification. Every IV is still
 * fresh output of the same generator, used once.
 */
const ivPool = { bytes: Buffer.alloc(IV_BYTES * 512), used: IV_BYTES * 512 };

function nextIv(): Buffer {
  if (ivPool.used + IV_BYTES > ivPool.bytes.length) {
    randomFillSync(ivPool.bytes);
    ivPool.used = 0;
  }
  const iv = Buffer.from(ivPool.bytes.subarray(ivPool.used, ivPool.used + IV_BYTES));
  ivPool.used += IV_BYTES;
  return iv;
}

function seal(subjectId: string, key: Buffer, plaintext: string): string {
  const iv = nextIv();
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(subjectId));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return formatValue({ subjectId, iv, ciphertext, tag: cipher.getAuthTag() });
}

function open(key: Buffer, parts: EncryptedValue): string {
  try {
    const decipher = createDecipheriv(ALGORITHM, key, parts.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData(parts.subjectId));
    decipher.setAuthTag(parts.tag);
    return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new TamperedValueError();
  }
}

function isStringArray(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
