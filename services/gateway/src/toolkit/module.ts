import type { RequestListener } from 'node:http';
import type { AccountRoutesOptions } from '../accounts/routes.js';
import type { GatewayContext, GatewayModule } from '../module.js';
import type { SandboxOptions } from './sandbox.js';
import { createTestToolkit } from './toolkit.js';

/** Family I, the test toolkit: test deployments only (a live one mounts nothing and answers 404). */
export function toolkitModule(
  context: GatewayContext,
  options: {
    accountWrites: AccountRoutesOptions;
    sandbox: SandboxOptions | undefined;
    trustAnchorsPem: string | undefined;
    app: () => RequestListener;
  },
): GatewayModule {
  if (context.environment !== 'test') return {};
  const toolkit = createTestToolkit({
    store: context.store,
    accountWrites: options.accountWrites,
    sandbox: options.sandbox,
    trustAnchorsPem: options.trustAnchorsPem,
    app: options.app,
    instanceId: context.instanceId,
    targetAllowedNetworks: context.security.testTargetAllowedNetworks ?? [],
    logger: context.logger.child({ component: 'test-toolkit' }),
    ...(context.metrics && { metrics: context.metrics }),
    clock: context.clock,
    newId: context.newId,
  });
  return {
    routers: toolkit.routers,
    prepare: () => toolkit.start(),
    // Its runs call this gateway's own routes: they finish while the consumers still answer them.
    drain: () => toolkit.stop(),
  };
}
