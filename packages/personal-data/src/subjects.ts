import { dailySubject } from './daily-subject.js';

/** One key per account holder: destroying it erases the holder's names everywhere they were copied. */
export const accountSubject = (accountId: string): string => `account-${accountId}`;

/**
 * One key for the deployment's fingerprints of imported account records (the gateway's bulk import):
 * an unchanged record of the nightly file is recognised without reading its holder's key. A holder's
 * erasure clears the holder's fingerprint (the gateway's accounts read model). Never destroyed.
 */
export const ACCOUNT_FINGERPRINT_SUBJECT = 'record-fingerprints';

/** Typed payee names share one key per UTC day, destroyed when the day leaves the retention window. */
export const TYPED_NAME_PREFIX = 'typed-';
export const typedNameSubject = (requestedAt: Date): string =>
  dailySubject(TYPED_NAME_PREFIX, requestedAt);

/** The schema holding the subject keys; every service that reads personal fields uses the same one. */
export const KEYSTORE_SCHEMA = 'keystore';
