/**
 * One responder's circuit breaker as a pure decider: `decide(command, state)` returns events,
 * `evolve(state, event)` the next state; the time arrives in the command. Written here rather than
 * taken from a library (opossum): a library wraps the call, owns its timeout and rolling-window
 * timers on the real clock, and counts every rejection, where we count only the failures that say
 * the responder is down and decide retries ourselves (never after a request may have been received).
 */
export interface BreakerSettings {
  /** Consecutive failures that open the breaker. */
  consecutiveFailures: number;
  /** Failure share over the rolling window that opens it, once the window holds `minimumCalls`. */
  failureRatio: number;
  minimumCalls: number;
  windowMs: number;
  /** How long it stays open before one probe is let through (half-open). */
  coolDownMs: number;
}

// Five failures in a row is a responder that is down, not a blip; half of at least 20 calls in 10 s is
// one that fails too often to be worth the payer's wait. A probe every 5 s costs a down peer nothing.
export const DEFAULT_BREAKER_SETTINGS: BreakerSettings = {
  consecutiveFailures: 5,
  failureRatio: 0.5,
  minimumCalls: 20,
  windowMs: 10_000,
  coolDownMs: 5_000,
};

/** The rolling window in one-second buckets, so it stays small at any rate. */
const BUCKET_MS = 1_000;
interface Bucket {
  start: number;
  calls: number;
  failures: number;
}

export type BreakerState =
  | { status: 'closed'; consecutiveFailures: number; buckets: readonly Bucket[] }
  | { status: 'open'; openedAt: number }
  | { status: 'half-open'; probing: boolean };

export const initialBreakerState = (): BreakerState => ({
  status: 'closed',
  consecutiveFailures: 0,
  buckets: [],
});

export type BreakerCommand =
  | { type: 'AdmitCall'; now: number }
  /** `failed`: a failure that says the responder is down (unavailable, TLS, timeout, 5xx). */
  | { type: 'RecordResult'; failed: boolean; probe: boolean; now: number }
  /** An admitted call that was never sent (our own budget refused it). */
  | { type: 'AbandonCall'; probe: boolean };

export type BreakerEvent =
  | { type: 'CallAdmitted'; probe: boolean }
  | { type: 'CallRefused'; openedAt: number | undefined }
  | { type: 'HalfOpened' }
  | { type: 'ResultRecorded'; failed: boolean; at: number }
  | { type: 'Opened'; at: number }
  | { type: 'Closed' }
  | { type: 'ProbeAbandoned' };

export function decideBreaker(
  command: BreakerCommand,
  state: BreakerState,
  settings: BreakerSettings,
): BreakerEvent[] {
  switch (command.type) {
    case 'AdmitCall':
      if (state.status === 'closed') return [{ type: 'CallAdmitted', probe: false }];
      if (state.status === 'open') {
        if (command.now - state.openedAt < settings.coolDownMs)
          return [{ type: 'CallRefused', openedAt: state.openedAt }];
        return [{ type: 'HalfOpened' }, { type: 'CallAdmitted', probe: true }];
      }
      return state.probing
        ? [{ type: 'CallRefused', openedAt: undefined }]
        : [{ type: 'CallAdmitted', probe: true }];
    case 'RecordResult':
      if (state.status === 'half-open' && command.probe)
        return [command.failed ? { type: 'Opened', at: command.now } : { type: 'Closed' }];
      // A call admitted before the breaker opened ends while it is open: the probe decides, not it.
      if (state.status !== 'closed') return [];
      return shouldOpen(state, command.failed, command.now, settings)
        ? [{ type: 'Opened', at: command.now }]
        : [{ type: 'ResultRecorded', failed: command.failed, at: command.now }];
    case 'AbandonCall':
      return state.status === 'half-open' && command.probe ? [{ type: 'ProbeAbandoned' }] : [];
  }
}

export function evolveBreaker(
  state: BreakerState,
  event: BreakerEvent,
  settings: BreakerSettings,
): BreakerState {
  switch (event.type) {
    case 'CallAdmitted':
      return event.probe ? { status: 'half-open', probing: true } : state;
    case 'CallRefused':
      return state;
    case 'HalfOpened':
    case 'ProbeAbandoned':
      return { status: 'half-open', probing: false };
    case 'Opened':
      return { status: 'open', openedAt: event.at };
    case 'Closed':
      return initialBreakerState();
    case 'ResultRecorded':
      if (state.status !== 'closed') return state;
      return {
        status: 'closed',
        consecutiveFailures: event.failed ? state.consecutiveFailures + 1 : 0,
        buckets: withResult(state.buckets, event.failed, event.at, settings.windowMs),
      };
  }
}

function shouldOpen(
  state: Extract<BreakerState, { status: 'closed' }>,
  failed: boolean,
  now: number,
  settings: BreakerSettings,
): boolean {
  if (!failed) return false;
  if (state.consecutiveFailures + 1 >= settings.consecutiveFailures) return true;
  const buckets = withResult(state.buckets, failed, now, settings.windowMs);
  const calls = buckets.reduce((sum, bucket) => sum + bucket.calls, 0);
  const failures = buckets.reduce((sum, bucket) => sum + bucket.failures, 0);
  return calls >= settings.minimumCalls && failures / calls >= settings.failureRatio;
}

function withResult(
  buckets: readonly Bucket[],
  failed: boolean,
  now: number,
  windowMs: number,
): Bucket[] {
  const start = now - (now % BUCKET_MS);
  const kept = buckets.filter((bucket) => bucket.start > now - windowMs);
  const last = kept.at(-1);
  const add = failed ? 1 : 0;
  if (last !== undefined && last.start === start)
    return [...kept.slice(0, -1), { start, calls: last.calls + 1, failures: last.failures + add }];
  return [...kept, { start, calls: 1, failures: add }];
}

/** The gauge's value: 0 closed, 1 half-open, 2 open. */
export const breakerGaugeValue = (state: BreakerState): number =>
  state.status === 'closed' ? 0 : state.status === 'half-open' ? 1 : 2;
