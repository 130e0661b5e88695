export { AccountCache, type AccountLoader } from './account-cache.js';
export {
  appendedAt,
  copiesAtCommit,
  type AccountCopyAtCommit,
  type AppendedAccountEvent,
} from './account-copy-at-commit.js';
export { accountCopyLag } from './account-copy-lag.js';
export {
  findAccountsByIbans,
  migrateAccountProjection,
  projectAccountEvent,
  type MatchingAccount,
} from './account-projection.js';
export { AccountProjection, type AccountProjectionOptions } from './account-projection-consumer.js';
export { decideOutcome, matchIdentification } from './decide.js';
export { createVerificationDecider, type Decision, type VerificationDecider } from './decider.js';
export {
  countParticipantAnswers,
  recordDecision,
  type ParticipantAnswer,
} from './decision-metrics.js';
export { deciderWithCopy } from './decider-with-copy.js';
