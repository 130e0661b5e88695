import type { SchemeParticipant } from '@vop/contracts';
import type { Logger } from '@vop/observability';
import { LoadVersionMismatchError } from './load-version-mismatch.js';
import type { SchemeDirectory } from './scheme-directory.js';

export const DEVELOPMENT_SEED_SNAPSHOT_ID = 'development-seed';

/**
 * Development profile: when no directory was ever loaded, version 1 holds the development participant
 * certificate (client.pem), so `pnpm start` and its curl examples work. Another instance seeding at
 * the same moment loses the race harmlessly.
 */
export async function seedDevelopmentDirectory(
  directory: SchemeDirectory,
  participants: SchemeParticipant[],
  now: Date,
  logger: Logger,
): Promise<void> {
  if (directory.version() !== undefined) return;
  try {
    await directory.load({
      snapshot: { snapshotId: DEVELOPMENT_SEED_SNAPSHOT_ID, participants },
      loadedBy: 'development-profile',
      now,
      expectedVersion: 0,
    });
    logger.info('development scheme directory seeded');
  } catch (error) {
    if (!(error instanceof LoadVersionMismatchError)) throw error;
    await directory.refresh();
  }
}
