/**
 * The subject's key was destroyed (crypto-shredded), so nothing more may be encrypted for it: a fresh key
 * would make new personal data readable again after an erasure.
 */
export class SubjectKeyDestroyedError extends Error {
  constructor(readonly subjectId: string) {
    // The id stays off the message: messages reach logs and ids may be derived from personal data.
    super(
      'The key of this personal-data subject was destroyed; nothing more can be encrypted for it',
    );
    this.name = 'SubjectKeyDestroyedError';
  }
}

/** A `pd1:` value failed GCM authentication: its ciphertext, IV or tag was altered, or the key is wrong. */
export class TamperedValueError extends Error {
  constructor() {
    super('A personal-data value failed authentication (tampered or encrypted under another key)');
    this.name = 'TamperedValueError';
  }
}

/**
 * A subject said to be made (`KeysForOptions.made`) had a key already when its fresh key was stored:
 * whatever was sealed with the fresh key before that was known (`SubjectKeyStore.keysAhead`) must not
 * be written. The subject's id stays off the message, as for a destroyed key.
 */
export class SubjectKeyRaceError extends Error {
  constructor() {
    super('A subject made just now already had a key; what was sealed for it is not written');
    this.name = 'SubjectKeyRaceError';
  }
}
