export {
  decideVerification,
  endVerification,
  evolveVerification,
  initialVerificationState,
  requestVerification,
  VerificationAlreadyRequestedError,
  VerificationNotPendingError,
  type VerificationCommand,
  type VerificationEndCommand,
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
export { requestEnvelope, requestStream, type RecordedRequest } from './request-stream.js';
export { AccountCache, type AccountLoader } from './deciding/account-cache.js';
export {
  appendedAt,
  copiesAtCommit,
  type AccountCopyAtCommit,
  type AppendedAccountEvent,
} from './deciding/account-copy-at-commit.js';
export { accountCopyLag } from './deciding/account-copy-lag.js';
export {
  findAccountsByIbans,
  migrateAccountProjection,
  projectAccountEvent,
  type MatchingAccount,
} from './deciding/account-projection.js';
export {
  AccountProjection,
  type AccountProjectionOptions,
  type AccountsAlongside,
} from './deciding/account-projection-consumer.js';
export { decideOutcome, matchIdentification } from './deciding/decide.js';
export {
  ANSWERED_BY_PAYEE_BANK,
  completionFromAnswer,
  notHeldDecisions,
  withPayeeBankAnswers,
  type PayeeBankAnswer,
} from './deciding/payee-bank-answers.js';
export {
  endMetadata,
  roundDecisions,
  type DecidedEnd,
  type DecideRound,
  type Decision,
  type RoundDecisions,
} from './deciding/round-decisions.js';
export {
  countParticipantAnswers,
  recordDecision,
  type ParticipantAnswer,
} from './deciding/decision-metrics.js';
export { decisionAccountCopy, decisionsAgainst } from './deciding/decisions-with-copy.js';
