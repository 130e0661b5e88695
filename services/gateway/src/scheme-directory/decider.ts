import type { SchemeDirectorySnapshot } from '@vop/contracts';
import { normaliseBic } from './adherence.js';
import { LoadVersionMismatchError } from './load-version-mismatch.js';

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

/** A rule across entries of the snapshot is broken; `field` is the path of the offending value. */
export class SnapshotRuleError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'SnapshotRuleError';
  }
}

export class DuplicateParticipantError extends SnapshotRuleError {
  constructor(
    readonly authorisationNumber: string,
    index: number,
  ) {
    super(
      `participants[${index}].authorisationNumber`,
      `Participant ${authorisationNumber} appears twice for one environment`,
    );
    this.name = 'DuplicateParticipantError';
  }
}

export class DuplicatePriorityError extends SnapshotRuleError {
  constructor(authorisationNumber: string, index: number, endpoint: number, priority: number) {
    super(
      `participants[${index}].endpoints[${endpoint}].priority`,
      `Participant ${authorisationNumber} has two endpoints of priority ${priority}; give each its own`,
    );
    this.name = 'DuplicatePriorityError';
  }
}

export class SharedBicError extends SnapshotRuleError {
  constructor(bic: string, holders: [string, string], index: number, bicIndex: number) {
    super(
      `participants[${index}].bics[${bicIndex}]`,
      `BIC ${bic} is held by both ${holders[0]} and ${holders[1]} in one environment; a BIC names one participant`,
    );
    this.name = 'SharedBicError';
  }
}

/** One participant per environment, one holder per BIC per environment, one endpoint per priority. */
function checkSnapshotRules(snapshot: SchemeDirectorySnapshot): void {
  const participants = new Set<string>();
  const holders = new Map<string, string>();
  snapshot.participants.forEach((participant, index) => {
    const { environment, authorisationNumber } = participant;
    const key = `${environment}:${authorisationNumber}`;
    if (participants.has(key)) throw new DuplicateParticipantError(authorisationNumber, index);
    participants.add(key);
    participant.bics.forEach((bic, bicIndex) => {
      const bicKey = `${environment}:${normaliseBic(bic)}`;
      const holder = holders.get(bicKey);
      if (holder !== undefined && holder !== authorisationNumber)
        throw new SharedBicError(bic, [holder, authorisationNumber], index, bicIndex);
      holders.set(bicKey, authorisationNumber);
    });
    const priorities = new Set<number>();
    (participant.endpoints ?? []).forEach((endpoint, endpointIndex) => {
      if (priorities.has(endpoint.priority))
        throw new DuplicatePriorityError(
          authorisationNumber,
          index,
          endpointIndex,
          endpoint.priority,
        );
      priorities.add(endpoint.priority);
    });
  });
}

/**
 * A snapshot replaces the previous one whole; each load is the next version. A responding
 * participant may list no endpoint: it is in the directory but cannot be asked.
 */
export function decideSchemeDirectory(
  command: SchemeDirectoryCommand,
  state: SchemeDirectoryState,
): SchemeDirectoryEvent[] {
  if (command.expectedVersion !== undefined && command.expectedVersion !== state.version)
    throw new LoadVersionMismatchError('directory', command.expectedVersion, state.version);
  checkSnapshotRules(command.snapshot);
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
