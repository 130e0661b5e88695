export {
  ANALYTICS_SCHEMA,
  createAnalyticsService,
  type AnalyticsService,
  type AnalyticsServiceOptions,
} from './analytics.js';
export { startNewGeneration } from './activity/generation.js';
