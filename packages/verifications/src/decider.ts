import type {
  VerificationCompletedData,
  VerificationEvent,
  VerificationFailedData,
  VerificationFailureReason,
  VerificationRequestedData,
  VerificationEnd,
} from '@vop/contracts';

/**
 * One verification: requested by a family's route (or a batch), then ended once: completed by matching, or
 * failed when it could not be completed. The first end wins; the other is refused. Pure.
 */
export type VerificationState =
  | { status: 'none' }
  | { status: 'requested'; request: VerificationRequestedData }
  | {
      status: 'completed';
      request: VerificationRequestedData;
      completion: VerificationCompletedData;
    }
  | { status: 'failed'; request: VerificationRequestedData; failure: VerificationFailedData };

export const initialVerificationState: VerificationState = { status: 'none' };

/** What a caller asks for; the id and the time are given to the command, never made by the decider. */
export type VerificationRequestFields = Omit<
  VerificationRequestedData,
  'verificationId' | 'requestedAt'
>;

/** The commands that end a requested verification. */
export type VerificationEndCommand =
  | { type: 'CompleteVerification'; completion: VerificationCompletedData }
  | {
      type: 'FailVerification';
      verificationId: string;
      reason: VerificationFailureReason;
      failedAt: string;
    };

export type VerificationCommand =
  | {
      type: 'RequestVerification';
      verificationId: string;
      requestedAt: string;
      fields: VerificationRequestFields;
    }
  | VerificationEndCommand;

export class VerificationAlreadyRequestedError extends Error {
  constructor(readonly verificationId: string) {
    super('Verification already requested');
    this.name = 'VerificationAlreadyRequestedError';
  }
}

export class VerificationNotPendingError extends Error {
  constructor(readonly verificationId: string) {
    super('Verification is not pending: unknown, or ended already');
    this.name = 'VerificationNotPendingError';
  }
}

export function decideVerification(
  command: VerificationCommand,
  state: VerificationState,
): VerificationEvent[] {
  switch (command.type) {
    case 'RequestVerification': {
      if (state.status !== 'none')
        throw new VerificationAlreadyRequestedError(command.verificationId);
      const data = {
        ...command.fields,
        verificationId: command.verificationId,
        requestedAt: command.requestedAt,
      };
      return [{ type: 'VerificationRequested', data }];
    }
    case 'CompleteVerification':
    case 'FailVerification':
      if (state.status !== 'requested') throw new VerificationNotPendingError(endedId(command));
      return [endVerification(state.request, command)];
  }
}

const endedId = (command: VerificationEndCommand): string =>
  command.type === 'CompleteVerification'
    ? command.completion.verificationId
    : command.verificationId;

/**
 * The end of a requested verification (what `decideVerification` decides in the state `requested`),
 * for a decider that holds the request itself and need not rebuild the state.
 */
export function endVerification(
  request: VerificationRequestedData,
  command: VerificationEndCommand,
): VerificationEnd {
  if (request.verificationId !== endedId(command))
    throw new VerificationNotPendingError(endedId(command));
  // The family, participant and batch entry are the request's: an end answers in the form the caller
  // asked in, and its consumers (batch progress, webhooks) need not join it to the request.
  const { family, participant, batch } = request;
  if (command.type === 'CompleteVerification') {
    const data = { ...command.completion, family };
    if (participant !== undefined) data.participant = participant;
    if (batch !== undefined) data.batch = batch;
    return { type: 'VerificationCompleted', data };
  }
  const data: VerificationFailedData = {
    verificationId: command.verificationId,
    family,
    reason: command.reason,
    failedAt: command.failedAt,
  };
  if (participant !== undefined) data.participant = participant;
  if (batch !== undefined) data.batch = batch;
  return { type: 'VerificationFailed', data };
}

export function evolveVerification(
  state: VerificationState,
  event: VerificationEvent,
): VerificationState {
  switch (event.type) {
    case 'VerificationRequested':
      return state.status === 'none' ? { status: 'requested', request: event.data } : state;
    case 'VerificationCompleted':
      return state.status === 'requested'
        ? { ...state, status: 'completed', completion: event.data }
        : state;
    case 'VerificationFailed':
      return state.status === 'requested'
        ? { status: 'failed', request: state.request, failure: event.data }
        : state;
  }
}

/** The request event for fields, with the id and the clock passed in (routes and batches alike). */
export function requestVerification(
  fields: VerificationRequestFields,
  ids: { newId: () => string; now: () => Date },
): VerificationRequestedData {
  const command = {
    type: 'RequestVerification',
    verificationId: ids.newId(),
    requestedAt: ids.now().toISOString(),
    fields,
  } as const;
  const [requested] = decideVerification(command, initialVerificationState);
  if (requested?.type !== 'VerificationRequested')
    throw new Error('RequestVerification decided no request');
  return requested.data;
}
