import type { ServiceMetrics } from '@vop/observability';

/** 5 ms to 5 s: a nearby responder answers in milliseconds, the scheme's deadline is 5 s. */
export const REQUESTER_DURATION_BUCKETS_SECONDS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5,
];

/** Labelled by the responder's participant id and the outcome: never a name or an IBAN. */
export interface RequesterMetrics {
  /** A call that was sent (a refused one took no time of the responder's). */
  observeCall(responder: string, outcome: string, seconds: number): void;
  countOutcome(responder: string, outcome: string): void;
  breakerState(responder: string, value: number): void;
  inFlight(responder: string, change: 1 | -1): void;
}

export function createRequesterMetrics(metrics: ServiceMetrics): RequesterMetrics {
  const duration = metrics.histogram<'responder' | 'outcome'>({
    name: 'requester_request_duration_seconds',
    help: 'Calls sent to responding PSPs, from taking a call slot to the validated answer or failure',
    labelNames: ['responder', 'outcome'],
    buckets: REQUESTER_DURATION_BUCKETS_SECONDS,
  });
  const outcomes = metrics.counter<'responder' | 'outcome'>({
    name: 'requester_requests_total',
    help: 'Checks asked of responding PSPs: the answer (MTCH, CMTC, NMTC, NOAP) or the failure reason',
    labelNames: ['responder', 'outcome'],
  });
  const breaker = metrics.gauge<'responder'>({
    name: 'requester_breaker_state',
    help: 'Circuit breaker per responding PSP: 0 closed, 1 half-open, 2 open',
    labelNames: ['responder'],
  });
  const inFlight = metrics.gauge<'responder'>({
    name: 'requester_in_flight',
    help: 'Calls to a responding PSP in flight from this process',
    labelNames: ['responder'],
  });
  return {
    observeCall: (responder, outcome, seconds) => duration.observe({ responder, outcome }, seconds),
    countOutcome: (responder, outcome) => outcomes.inc({ responder, outcome }),
    breakerState: (responder, value) => breaker.set({ responder }, value),
    inFlight: (responder, change) => inFlight.inc({ responder }, change),
  };
}
