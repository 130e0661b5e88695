import type { SchemeDirectorySnapshot } from '@vop/contracts';

/** The stream holding every load of the scheme directory, one event per snapshot. */
export const SCHEME_DIRECTORY_STREAM = 'scheme-directory';

export interface SchemeDirectoryLoaded {
  type: 'SchemeDirectoryLoaded';
  data: {
    version: number;
    snapshot: SchemeDirectorySnapshot;
    loadedAt: string;
    /** The admin certificate's participant id (or `development-profile` for the seed); never a person. */
    loadedBy: string;
  };
}
export type SchemeDirectoryEvent = SchemeDirectoryLoaded;

export interface LoadSchemeDirectory {
  type: 'LoadSchemeDirectory';
  snapshot: SchemeDirectorySnapshot;
  now: string;
  loadedBy: string;
  /** When given, the load applies only on top of this version (If-Match); 0: only as the first. */
  expectedVersion?: number;
}
export type SchemeDirectoryCommand = LoadSchemeDirectory;

export interface SchemeDirectoryState {
  version: number;
}
export const initialSchemeDirectoryState: SchemeDirectoryState = { version: 0 };

export class DirectoryVersionMismatchError extends Error {
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`The directory is at version ${actual}, not ${expected}`);
    this.name = 'DirectoryVersionMismatchError';
  }
}

export class DuplicateParticipantError extends Error {
  constructor(readonly authorisationNumber: string) {
    super(`Participant ${authorisationNumber} appears twice for one environment`);
    this.name = 'DuplicateParticipantError';
  }
}

/** A snapshot replaces the previous one whole; each load is the next version. */
export function decideSchemeDirectory(
  command: SchemeDirectoryCommand,
  state: SchemeDirectoryState,
): SchemeDirectoryEvent[] {
  if (command.expectedVersion !== undefined && command.expectedVersion !== state.version)
    throw new DirectoryVersionMismatchError(command.expectedVersion, state.version);
  const seen = new Set<string>();
  for (const participant of command.snapshot.participants) {
    const key = `${participant.environment}:${participant.authorisationNumber}`;
    if (seen.has(key)) throw new DuplicateParticipantError(participant.authorisationNumber);
    seen.add(key);
  }
  return [
    {
      type: 'SchemeDirectoryLoaded',
      data: {
        version: state.version + 1,
        snapshot: command.snapshot,
        loadedAt: command.now,
        loadedBy: command.loadedBy,
      },
    },
  ];
}

export function evolveSchemeDirectory(
  state: SchemeDirectoryState,
  event: SchemeDirectoryEvent,
): SchemeDirectoryState {
  return { ...state, version: event.data.version };
}

export const schemeDirectoryDecider = {
  decide: decideSchemeDirectory,
  evolve: evolveSchemeDirectory,
  initialState: initialSchemeDirectoryState,
};
