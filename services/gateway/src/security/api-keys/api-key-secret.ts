import { createHash, randomBytes } from 'node:crypto';
import type { ApiKeyScope } from '@vop/http';

export type { ApiKeyScope };
export type KeyEnvironment = 'test' | 'live';
export const API_KEY_SCOPES = [
  'verify',
  'accounts',
  'analytics',
] as const satisfies readonly ApiKeyScope[];

const SECRET_BYTES = 32;
const KEY_PATTERN = /^vop_(test|live)_[A-Za-z0-9_-]{43,}$/;

/** A new key: the secret is shown once; only its hash is stored. */
export function generateApiKeySecret(environment: KeyEnvironment): string {
  return `vop_${environment}_${randomBytes(SECRET_BYTES).toString('base64url')}`;
}

export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The environment a presented secret claims, or undefined when it is not shaped like one of our keys. */
export function environmentOfSecret(secret: string): KeyEnvironment | undefined {
  const match = KEY_PATTERN.exec(secret);
  return match ? (match[1] as KeyEnvironment) : undefined;
}

export function newKeyId(): string {
  return `key_${randomBytes(9).toString('base64url')}`;
}
