export {
  ANALYTICS_SCHEMA,
  createAnalyticsService,
  type AnalyticsService,
  type AnalyticsServiceOptions,
} from './service.js';
export { startNewGeneration } from './activity/generation.js';
