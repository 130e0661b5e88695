import { access, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AuditLog } from '../../audit/audit-log.js';
import type { ApiKeyStore } from './api-key-store.js';

export const DEVELOPMENT_PARTICIPANT = 'DEVELOPMENT';

/** The development test key's scopes: single checks, batches and webhooks, and account records. */
export const DEVELOPMENT_KEY_SCOPES = ['verify', 'accounts'] as const;

export function developmentKeyPath(dataDir: string): string {
  return path.join(dataDir, 'pki', 'test-api-key.txt');
}

/** Development profile, first start: one test key (DEVELOPMENT_KEY_SCOPES), written to the data folder (0600). */
export async function ensureDevelopmentKey(options: {
  dataDir: string;
  keys: ApiKeyStore;
  audit: AuditLog;
}): Promise<string | undefined> {
  const file = developmentKeyPath(options.dataDir);
  const exists = await access(file).then(
    () => true,
    () => false,
  );
  if (exists) return undefined;
  await mkdir(path.dirname(file), { recursive: true });
  // Gateways started together on one data folder race for the file: the file is written inside the
  // transaction, so the one that loses (EEXIST) rolls its key back instead of dying or leaving it orphaned.
  const written = await options.keys.sql
    .transaction(async (tx) => {
      const issued = await options.keys.issue(
        {
          participantId: DEVELOPMENT_PARTICIPANT,
          environment: 'test',
          scopes: [...DEVELOPMENT_KEY_SCOPES],
        },
        tx,
      );
      await options.audit.append(
        { operation: 'api-key.issued', user: 'system', result: 'success', target: issued.keyId },
        tx,
      );
      await writeFile(file, `${issued.secret}\n`, { mode: 0o600, flag: 'wx' });
      return true;
    })
    .catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    });
  if (!written) return undefined;
  return file;
}
