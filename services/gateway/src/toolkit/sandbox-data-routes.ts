import { LATEST_REFERENCE_DATA_VERSION, loadReferenceData } from '@vop/conformance';
import { DataLoadRequest, EnvironmentResetRequest, GenerateDataRequest } from '@vop/contracts';
import { parseBody, requestMetadata, createRouter } from '@vop/http';
import type { SerialQueue } from '@vop/event-store';
import { type Router } from 'express';
import { handleAccountCommand } from '../accounts/command-handler.js';
import { testAccountId } from '../accounts/sandbox-routes.js';
import type { AccountRoutesOptions } from '../accounts/routes.js';
import {
  generatedCase,
  loadReferenceAccounts,
  referenceDataVersion,
  removeTestAccounts,
  sandboxIban,
} from './sandbox-data.js';

/**
 * POST /test/data/generate, /test/data/load and /test/environment/reset: sandbox data only.
 */
export function sandboxDataRoutes(
  writes: AccountRoutesOptions,
  /** Loads and resets, one at a time in this process (toolkit.ts). */
  loadsAndResets: SerialQueue,
): Router {
  const router = createRouter();

  router.post('/test/data/generate', async (req, res) => {
    const body = parseBody(GenerateDataRequest, req.body);
    const { fixture } = await loadReferenceData();
    const metadata = requestMetadata(req);
    const cases = [];
    for (let index = 0; index < body.count; index++) {
      const scenario = body.scenarios[index % body.scenarios.length] ?? 'exact_match';
      const generated = generatedCase(index, scenario);
      const accountId = writes.newId();
      const iban = sandboxIban();
      await handleAccountCommand(
        writes.store,
        {
          type: 'OpenAccount',
          accountId,
          fields: { iban, name: generated.name, holderType: 'person' },
          now: writes.clock().toISOString(),
        },
        metadata,
        { testAccount: true },
        writes.protect,
        writes.copy,
      );
      cases.push({
        accountId: testAccountId(accountId),
        iban,
        scenario,
        request: {
          method: 'POST' as const,
          path: '/vop/verify',
          body: {
            party: { name: generated.asked },
            partyAccount: { iban },
            partyAgent: { financialInstitutionId: { bicfi: fixture.responderBic } },
            requestingAgent: { financialInstitutionId: { bicfi: fixture.requesterBic } },
          },
        },
        expected: { partyNameMatch: generated.partyNameMatch, matchedName: generated.matchedName },
      });
    }
    res.status(201).json({ count: cases.length, cases });
  });

  router.post('/test/data/load', async (req, res) => {
    const body = parseBody(DataLoadRequest, req.body);
    const version = referenceDataVersion(body.version);
    const loaded = await loadsAndResets.run(() =>
      loadReferenceAccounts(writes, version, requestMetadata(req)),
    );
    res.json(loaded);
  });

  router.post('/test/environment/reset', async (req, res) => {
    const body = parseBody(EnvironmentResetRequest, req.body);
    const metadata = requestMetadata(req);
    const { accountsRemoved, reloaded } = await loadsAndResets.run(async () => ({
      accountsRemoved: body.resetDatabase ? await removeTestAccounts(writes, metadata) : 0,
      reloaded: body.reloadTestData
        ? await loadReferenceAccounts(writes, LATEST_REFERENCE_DATA_VERSION, metadata)
        : undefined,
    }));
    res.json({ status: 'reset', accountsRemoved, ...(reloaded && { reloaded }) });
  });

  return router;
}
