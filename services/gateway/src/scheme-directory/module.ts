import type { GatewayContext, GatewayModule } from '../module.js';
import { bankCodeRoutes } from './bank-code-routes.js';
import { BankCodeTable } from './bank-code-table.js';
import { seedDevelopmentDirectory } from './development-seed.js';
import { payeeBankFinder, type PayeeBankFinder } from './payee-bank.js';
import { requesterCheck, type RequesterCheck } from './requester-check.js';
import { schemeDirectoryRoutes } from './routes.js';
import { SchemeDirectory } from './scheme-directory.js';

/**
 * The scheme directory (who may ask, who answers where) and the bank-code table, their routes, the
 * check the scheme's routes ask, and where a payee's bank is.
 */
export function schemeDirectoryModule(
  context: GatewayContext,
): GatewayModule & { requesters: RequesterCheck; payeeBanks: PayeeBankFinder } {
  const { store, environment, security, clock } = context;
  const logger = context.logger.child({ component: 'scheme-directory' });
  const settings = security.schemeDirectory;
  const directory = new SchemeDirectory({ store, environment, logger });
  const bankCodes = new BankCodeTable({ store, logger });
  return {
    requesters: requesterCheck({ directory, ownBics: settings?.ownBics, logger }),
    payeeBanks: payeeBankFinder({
      ownBics: settings?.ownBics,
      directory: () => directory.current(),
      bankCodes: () => bankCodes.current(),
    }),
    routers: [
      schemeDirectoryRoutes({ directory, clock }),
      bankCodeRoutes({ table: bankCodes, clock }),
    ],
    async prepare() {
      await directory.start();
      await bankCodes.start();
      if (settings?.developmentSeed !== undefined)
        await seedDevelopmentDirectory(
          directory,
          settings.developmentSeed,
          clock(),
          context.logger,
        );
    },
    async stop() {
      await directory.stop();
      await bankCodes.stop();
    },
  };
}
