import { describe } from 'node:test';
import { createInProcessBus } from '@vop/messaging';
import { domesticAccountsRebuildSpec } from './rebuild-spec.js';

describe('domestic accounts rebuild (in-process bus)', () => {
  domesticAccountsRebuildSpec(() => createInProcessBus());
});
