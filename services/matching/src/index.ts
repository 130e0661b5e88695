export {
  createMatchingService,
  MATCHING_SCHEMA,
  type MatchingService,
  type MatchingServiceOptions,
  type MatchingRole,
} from './service.js';
export type { NameMatcher } from '@vop/name-matching';
