import type { SqlExecutor } from '@vop/event-store';
import { accountSubject, type SubjectKeyStore } from '@vop/personal-data';

/**
 * Erasure of an account holder (GDPR), in the caller's transaction. Destroying the holder's key makes
 * every stored copy of the names unreadable (events, read models, Kafka). The import fingerprint of the
 * holder's record is under the deployment's key (import-chunk.ts), so it does not die with the holder's:
 * it is cleared, and the row is marked so that an import which read it before writes none back.
 */
export async function eraseAccountHolder(
  tx: SqlExecutor,
  subjectKeys: SubjectKeyStore,
  schema: string,
  accountId: string,
): Promise<void> {
  await subjectKeys.destroy(accountSubject(accountId), tx);
  await tx.query(
    `UPDATE ${schema}.accounts SET import_fingerprint = NULL, holder_erased_at = now() WHERE id = $1`,
    [accountId],
  );
}
