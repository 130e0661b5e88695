import type { ServiceMetrics } from '@vop/observability';
import type { Decision } from './decider.js';

/**
 * Outcomes by family, reasons by code, matcher time, wherever a check is decided (the recording
 * gateway for single checks, matching for batch entries): labels never carry names or IBANs.
 */
export function recordDecision(metrics: ServiceMetrics): (decision: Decision) => void {
  const reasons = metrics.counter({
    name: 'verification_reasons_total',
    help: 'Matcher reason codes given with outcomes',
    labelNames: ['reason'] as const,
  });
  return ({ family, outcome, reasons: codes, seconds }) => {
    metrics.verificationOutcomes.inc({ family, outcome });
    metrics.matchingDuration.observe(seconds);
    for (const reason of codes) reasons.inc({ reason });
  };
}
