import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '@vop/config';
import { webhookSettings } from './settings.js';

// Issue 43, item 3: the start banner's receiver on this machine works in development; the guard
// stays as configured in production and live.
describe('webhook settings: receivers allowed although not public', () => {
  it('the development profile of a test deployment allows loopback, besides the configured networks', () => {
    const settings = webhookSettings(
      loadConfig({ VOP_PROFILE: 'development', VOP_WEBHOOK_ALLOWED_NETWORKS: '10.1.0.0/16' }),
    );
    assert.deepEqual(settings.allowedNetworks, ['10.1.0.0/16', '127.0.0.0/8', '::1']);
  });

  it('production and live allow only the configured networks', () => {
    for (const env of [
      { VOP_PROFILE: 'production' },
      { VOP_PROFILE: 'development', VOP_ENVIRONMENT: 'live' },
    ]) {
      const settings = webhookSettings(
        loadConfig({ ...env, VOP_WEBHOOK_ALLOWED_NETWORKS: '10.1.0.0/16' }),
      );
      assert.deepEqual(settings.allowedNetworks, ['10.1.0.0/16'], JSON.stringify(env));
    }
  });
});
