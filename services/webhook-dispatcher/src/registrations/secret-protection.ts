import type { EventStore, SqlExecutor } from '@vop/event-store';
import { isEncrypted, type FieldCipher } from '@vop/personal-data';
import { registrationStream } from './command-handler.js';

/** Each registration's secret is encrypted under a key of its own (the personal-data key store). */
export const secretSubject = (webhookId: string): string => `webhook-secret-${webhookId}`;

export interface SecretProtection {
  /** The stored form of a registration's secret: never the secret itself. */
  seal(webhookId: string, secret: string, tx?: SqlExecutor): Promise<string>;
  /** The secret, for signing; throws when it cannot be read. */
  reveal(stored: string): Promise<string>;
}

export function secretProtection(cipher: FieldCipher): SecretProtection {
  return {
    seal: (webhookId, secret, tx) => cipher.encrypt(secretSubject(webhookId), secret, tx),
    async reveal(stored) {
      const secret = await cipher.decrypt(stored);
      if (secret === undefined) throw new Error('The registration secret can no longer be read');
      return secret;
    },
  };
}

/**
 * Migration: secrets stored in plain text before they were encrypted (in the read model and in the
 * WebhookRegistered events) are replaced by their encrypted form. Rewriting those events is the
 * exception to append-only, as for erasure: key material must not stay readable at rest.
 * Idempotent, and safe with several instances starting at once.
 */
export async function encryptPlainSecrets(
  store: EventStore,
  protection: SecretProtection,
): Promise<number> {
  const { sql, schema } = store;
  const { rows } = await sql.query<{ id: string; secret: string }>(
    `SELECT id, secret FROM ${schema}.registrations WHERE secret NOT LIKE 'pd1:%'`,
  );
  let encrypted = 0;
  for (const row of rows) {
    if (isEncrypted(row.secret)) continue;
    await sql.transaction(async (tx) => {
      const sealed = await protection.seal(row.id, row.secret, tx);
      const { rowCount } = await tx.query(
        `UPDATE ${schema}.registrations SET secret = $2 WHERE id = $1 AND secret = $3`,
        [row.id, sealed, row.secret],
      );
      await tx.query(
        `UPDATE ${schema}.messages SET data = jsonb_set(data, '{secret}', to_jsonb($2::text))
          WHERE stream_id = $1 AND type = 'WebhookRegistered' AND data->>'secret' = $3`,
        [registrationStream(row.id), sealed, row.secret],
      );
      encrypted += rowCount;
    });
  }
  return encrypted;
}
