export {
  SubjectKeyStore,
  SUBJECT_KEY_BYTES,
  type SubjectKeyStoreOptions,
  type SubjectKeyState,
} from './subject-key-store.js';
export {
  FieldCipher,
  isEncrypted,
  isSealedUnder,
  type DecryptedFields,
  type SubjectSealer,
} from './field-cipher.js';
export { dailySubject } from './daily-subject.js';
export { SubjectKeyDestroyedError, SubjectKeyRaceError, TamperedValueError } from './errors.js';
export {
  ACCOUNT_FINGERPRINT_SUBJECT,
  accountSubject,
  KEYSTORE_SCHEMA,
  TYPED_NAME_PREFIX,
  typedNameSubject,
} from './subjects.js';
export { accountEventProtector, type AccountEventProtector } from './account-event-protection.js';
export {
  protectAnsweredName,
  protectMatchedName,
  protectTypedName,
  revealMatchedName,
} from './verification-names.js';
export { createPersonalData, type PersonalData } from './personal-data.js';
