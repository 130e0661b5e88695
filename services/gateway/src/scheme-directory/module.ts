import type { GatewayContext, GatewayModule } from '../module.js';
import { seedDevelopmentDirectory } from './development-seed.js';
import { requesterCheck, type RequesterCheck } from './requester-check.js';
import { schemeDirectoryRoutes } from './routes.js';
import { SchemeDirectory } from './scheme-directory.js';

/** The scheme directory (who may ask), its routes, and the check the scheme's routes ask it. */
export function schemeDirectoryModule(
  context: GatewayContext,
): GatewayModule & { requesters: RequesterCheck } {
  const { store, environment, security, clock } = context;
  const logger = context.logger.child({ component: 'scheme-directory' });
  const settings = security.schemeDirectory;
  const directory = new SchemeDirectory({ store, environment, logger });
  return {
    requesters: requesterCheck({ directory, ownBics: settings?.ownBics, logger }),
    routers: [schemeDirectoryRoutes({ directory, clock })],
    async prepare() {
      await directory.start();
      if (settings?.developmentSeed !== undefined)
        await seedDevelopmentDirectory(
          directory,
          settings.developmentSeed,
          clock(),
          context.logger,
        );
    },
    stop: () => directory.stop(),
  };
}
