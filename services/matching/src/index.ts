export {
  createMatchingService,
  MATCHING_SCHEMA,
  type MatchingService,
  type MatchingServiceOptions,
} from './service.js';
export type { NameMatcher } from '@vop/name-matching';
export { decideOutcome, matchIdentification } from './verifications/decide.js';
