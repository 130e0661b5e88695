import type { ServiceMetrics } from '@vop/observability';
import type { Decision } from './round-decisions.js';

/** One answer given to a participant on a channel. */
export interface ParticipantAnswer {
  /** The requesting participant: a bank's identifier, never a name or an IBAN. */
  participant?: string;
  channel: 'single' | 'batch';
  outcome: string;
}

/**
 * Per participant and channel: the answers decided for it (`verification_answers_total`) and the
 * NOAP among them (`verification_noap_total`). NOAP against NMTC tells a held account from an unheld
 * one, so a participant whose NOAP rate or share looks like probing alerts a person
 * (infra/prometheus/vop.rules.yml, docs/architecture.md "Enumeration"). Counted where an answer is
 * decided: wherever a Decision is made, and for batch entries judged without matching (form 1).
 */
export function countParticipantAnswers(
  metrics: ServiceMetrics,
): (answer: ParticipantAnswer) => void {
  const labelNames = ['participant', 'channel'] as const;
  const answers = metrics.counter({
    name: 'verification_answers_total',
    help: 'Outcomes decided here, by requesting participant and channel (single, batch)',
    labelNames,
  });
  const noap = metrics.counter({
    name: 'verification_noap_total',
    help: 'NOAP outcomes (no such account, or not open) decided here, by participant and channel',
    labelNames,
  });
  return ({ participant, channel, outcome }) => {
    const labels = { participant: participant ?? 'unknown', channel };
    answers.inc(labels);
    if (outcome === 'NOAP') noap.inc(labels);
  };
}

/**
 * Outcomes by family, reasons by code, matcher time, and answers per participant, wherever a check is
 * decided (the recording gateway for single checks, the batch service or matching for batch entries):
 * labels never carry names or IBANs.
 */
export function recordDecision(metrics: ServiceMetrics): (decision: Decision) => void {
  const reasons = metrics.counter({
    name: 'verification_reasons_total',
    help: 'Matcher reason codes given with outcomes',
    labelNames: ['reason'] as const,
  });
  const countAnswer = countParticipantAnswers(metrics);
  return ({ family, outcome, reasons: codes, seconds, participant, channel }) => {
    metrics.verificationOutcomes.inc({ family, outcome });
    metrics.matchingDuration.observe(seconds);
    for (const reason of codes) reasons.inc({ reason });
    countAnswer({ ...(participant !== undefined && { participant }), channel, outcome });
  };
}
