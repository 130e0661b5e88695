import type { ReferenceDataSet } from './reference-data.js';
import { runConformance, type ClientCredential } from './runner.js';
import { referenceAccountProbes } from './scheme-suite/reference-account-probes.js';

export interface ReferenceDataWait {
  baseUrl: string;
  caPem: string;
  participant: ClientCredential;
  dataSet: ReferenceDataSet;
  /** How long to keep asking, in ms. */
  timeoutMs: number;
  intervalMs?: number;
  /** Told once, when the first try found an account not answered and the wait begins. */
  onWaiting?: (failures: string[]) => void;
}

/**
 * Asks the responder for every open reference account by its holder's name until each is answered
 * MTCH or the time is up: right after a load the accounts reach its deciding copy one by one, and a
 * case asked before its account arrived fails for no fault of the responder. Only an answer (200)
 * without the match is waited on. Returns whether all were answered, with the last try's failures.
 */
export async function waitForReferenceData(
  options: ReferenceDataWait,
): Promise<{ ready: boolean; failures: string[] }> {
  const deadline = Date.now() + options.timeoutMs;
  const probes = referenceAccountProbes(options.dataSet);
  let waiting = false;
  for (;;) {
    const results = await runConformance({
      baseUrl: options.baseUrl,
      caPem: options.caPem,
      credentials: { participant: options.participant },
      fixture: options.dataSet.fixture,
      cases: probes,
    });
    const failures = results.flatMap((result) =>
      result.outcome === 'passed' ? [] : result.failures.map((each) => `${result.id}: ${each}`),
    );
    if (failures.length === 0) return { ready: true, failures };
    // A refusal or no answer at all is no account on its way: waiting would not change it.
    const refused = results.some((result) => result.status !== 200);
    if (refused || Date.now() >= deadline) return { ready: false, failures };
    if (!waiting) options.onWaiting?.(failures);
    waiting = true;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
}
