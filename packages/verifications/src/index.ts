export {
  decideVerification,
  evolveVerification,
  initialVerificationState,
  requestVerification,
  VerificationAlreadyRequestedError,
  VerificationNotPendingError,
  type VerificationCommand,
  type VerificationRequestFields,
  type VerificationState,
} from './decider.js';
export { GroupCommit } from './group-commit.js';
export {
  verificationRecorder,
  type RecordVerification,
  type VerificationRecorderOptions,
  type VerificationRequest,
} from './recorder.js';
export { verificationStreamId } from './stream-id.js';
export {
  requestEnvelope,
  requestStream,
  type LocalDecider,
  type DecidedEnd,
  type RecordedRequest,
} from './local-decider.js';
