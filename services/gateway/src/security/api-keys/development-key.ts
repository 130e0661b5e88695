import { access, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AuditLog } from '../../audit/audit-log.js';
import type { ApiKeyStore } from './api-key-store.js';

export const DEVELOPMENT_PARTICIPANT = 'DEVELOPMENT';

export function developmentKeyPath(dataDir: string): string {
  return path.join(dataDir, 'pki', 'test-api-key.txt');
}

/** Development profile, first start: one test key with every scope, written to the data folder (0600). */
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
  const key = await options.keys.sql.transaction(async (tx) => {
    const issued = await options.keys.issue(
      {
        participantId: DEVELOPMENT_PARTICIPANT,
        environment: 'test',
        scopes: ['verify', 'accounts'],
      },
      tx,
    );
    await options.audit.append(
      { operation: 'api-key.issued', user: 'system', result: 'success', target: issued.keyId },
      tx,
    );
    return issued;
  });
  await writeFile(file, `${key.secret}\n`, { mode: 0o600, flag: 'wx' });
  return file;
}
