import { createPgliteClient } from '@vop/event-store';
import { testRunsSpec } from './test-runs-spec.js';

testRunsSpec('PGlite', () => createPgliteClient({}));
