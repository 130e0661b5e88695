export type {
  AccountHolder,
  HolderType,
  MatcherOptions,
  MatcherThresholds,
  MatchOutcome,
  MatchResult,
  NameMatcher,
  OutcomeThresholds,
  ReasonCode,
} from './types.js';
export { createNameMatcher } from './matcher.js';
export { DEFAULT_THRESHOLDS } from './scoring.js';
export { validateIban, validateBic, validateLei } from './identifiers/validation.js';
export type { IdentifierCheck } from './identifiers/validation.js';
export { matchPartyIdentification } from './identifiers/party-identification.js';
export type { PartyIdentification, PartyIdMatch } from './identifiers/party-identification.js';
