import type { VerificationCompletedData, VerificationRequestedData } from '@vop/contracts';
import type { FieldCipher } from './field-cipher.js';
import { accountSubject, typedNameSubject } from './subjects.js';

/** The typed payee name is kept under its day's key, destroyed when the day leaves the retention. */
export async function protectTypedName(
  cipher: FieldCipher,
  request: VerificationRequestedData,
): Promise<VerificationRequestedData> {
  if (request.name === undefined) return request;
  const name = await cipher.encrypt(typedNameSubject(new Date(request.requestedAt)), request.name);
  return { ...request, name };
}

/** The disclosed holder name travels encrypted under the holder's key, so erasure reaches it too. */
export async function protectMatchedName(
  cipher: FieldCipher,
  completed: VerificationCompletedData,
  accountId: string | undefined,
): Promise<VerificationCompletedData> {
  if (completed.matchedName === undefined || accountId === undefined) return completed;
  const matchedName = await cipher.encrypt(accountSubject(accountId), completed.matchedName);
  return { ...completed, matchedName };
}

/**
 * A name another bank disclosed (the requesting side, issue 40) is no holder of ours: it is kept under
 * the day's key of its request, like the typed name, and goes when that day leaves the retention.
 */
export async function protectAnsweredName(
  cipher: FieldCipher,
  completed: VerificationCompletedData,
  requestedAt: string,
): Promise<VerificationCompletedData> {
  if (completed.matchedName === undefined) return completed;
  const subject = typedNameSubject(new Date(requestedAt));
  return { ...completed, matchedName: await cipher.encrypt(subject, completed.matchedName) };
}

/**
 * The disclosed holder name in plain text; gone (undefined) once the holder was erased. Kept opened: a
 * decision discloses the value the account projection holds
 * (packages/verifications/src/deciding/round-decisions.ts), which it opened already to match against.
 */
export async function revealMatchedName(
  cipher: FieldCipher,
  completed: VerificationCompletedData,
): Promise<VerificationCompletedData> {
  if (completed.matchedName === undefined) return completed;
  const { matchedName: encrypted, ...rest } = completed;
  const [matchedName] = await cipher.decryptMany([encrypted], undefined, { keepOpened: true });
  return matchedName === undefined ? rest : { ...rest, matchedName };
}
