export { createMatchingService, MATCHING_SCHEMA, type MatchingService, type MatchingServiceOptions } from './service.js';
export { exactFoldMatcher, type NameMatcher, type AccountHolder, type MatchResult } from './verifications/matcher.js';
export { decideVerification, matchIdentification } from './verifications/decide.js';
