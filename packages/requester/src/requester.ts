import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger, ServiceMetrics } from '@vop/observability';
import { Agent } from 'undici';
import {
  breakerGaugeValue,
  decideBreaker,
  DEFAULT_BREAKER_SETTINGS,
  evolveBreaker,
  initialBreakerState,
  type BreakerCommand,
  type BreakerSettings,
  type BreakerState,
} from './circuit-breaker.js';
import { createConcurrencyGate, type ConcurrencyGate } from './concurrency-gate.js';
import { callEndpoints } from './endpoint-calls.js';
import { endpointsInOrder } from './endpoint-order.js';
import { createRateBudget } from './rate-budget.js';
import { createRequesterMetrics } from './requester-metrics.js';
import type { ExchangeOutcome } from './responder-answer.js';
import type { Requester, RequesterFailureReason, RoutedAnswer } from './types.js';

export interface RequesterOptions {
  /** Our client certificate as requesting PSP, and the anchors responders' certificates chain to. */
  tls: {
    cert: string | Buffer;
    key: string | Buffer;
    ca: string | Buffer | Array<string | Buffer>;
  };
  metrics: ServiceMetrics;
  logger: Logger;
  now?: () => Date;
  /** X-Request-ID of each call. */
  newId?: () => string;
  /** Calls in flight per responder (and connections per origin). */
  concurrency?: number;
  /** Calls waiting for a slot per responder; over it a call is refused at once. */
  queue?: number;
  ratePerSecond?: number;
  breaker?: Partial<BreakerSettings>;
  connectTimeoutMs?: number;
}

export const REQUESTER_DEFAULTS = {
  concurrency: 64,
  queue: 128,
  ratePerSecond: 1000,
  connectTimeoutMs: 3000,
} as const;

interface Peer {
  breaker: BreakerState;
  gate: ConcurrencyGate;
}

/**
 * The requesting PSP's client of the EPC inter-PSP API. undici, not node:https: a bounded keep-alive
 * pool per origin, aborting by signal (the socket of an aborted call is destroyed), and far less CPU
 * per request (bench/RESULTS.md §1).
 */
export function createRequester(options: RequesterOptions): Requester {
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? randomUUID;
  const concurrency = options.concurrency ?? REQUESTER_DEFAULTS.concurrency;
  const queue = options.queue ?? REQUESTER_DEFAULTS.queue;
  const breakerSettings = { ...DEFAULT_BREAKER_SETTINGS, ...options.breaker };
  const budget = createRateBudget(options.ratePerSecond ?? REQUESTER_DEFAULTS.ratePerSecond);
  const metrics = createRequesterMetrics(options.metrics);
  const peers = new Map<string, Peer>();
  const agent = new Agent({
    connections: concurrency,
    pipelining: 1,
    connect: {
      ...options.tls,
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
      timeout: options.connectTimeoutMs ?? REQUESTER_DEFAULTS.connectTimeoutMs,
    },
  });

  const peerOf = (participant: string): Peer => {
    let peer = peers.get(participant);
    if (peer === undefined) {
      peer = { breaker: initialBreakerState(), gate: createConcurrencyGate(concurrency, queue) };
      peers.set(participant, peer);
      metrics.breakerState(participant, 0);
    }
    return peer;
  };

  const breaker = (participant: string, command: BreakerCommand) => {
    const peer = peerOf(participant);
    const events = decideBreaker(command, peer.breaker, breakerSettings);
    for (const event of events) peer.breaker = evolveBreaker(peer.breaker, event, breakerSettings);
    metrics.breakerState(participant, breakerGaugeValue(peer.breaker));
    return events;
  };

  return {
    async ask(responder, check, askOptions): Promise<RoutedAnswer> {
      const started = performance.now();
      const { participant, bic } = responder;
      const seconds = () => (performance.now() - started) / 1000;
      const fail = (
        reason: RequesterFailureReason,
        detail: string,
        level: 'warn' | 'debug' = 'warn',
      ): RoutedAnswer => {
        metrics.countOutcome(participant, reason);
        // Refusals without a call (breaker open, budget spent) come at the check rate: the metrics
        // count them, the log would only repeat them.
        options.logger[level](
          { responder: participant, reason, detail },
          'a responder did not answer',
        );
        return { kind: 'failed', participant, bic, reason, detail, seconds: seconds() };
      };

      const { endpoints, refused } = endpointsInOrder(responder);
      if (endpoints.length === 0)
        return fail(
          'RESPONDER_UNAVAILABLE',
          refused.length > 0 ? refused.join('; ') : 'no endpoint',
        );

      // An open breaker answers for the responder being down, not for our load: UNAVAILABLE.
      const admission = breaker(participant, { type: 'AdmitCall', now: now().getTime() });
      const admitted = admission.find((event) => event.type === 'CallAdmitted');
      if (admitted === undefined) return fail('RESPONDER_UNAVAILABLE', 'circuit open', 'debug');
      const probe = admitted.probe;
      const abandon = () => breaker(participant, { type: 'AbandonCall', probe });

      // AbortSignal.timeout throws on a fraction of a millisecond.
      const deadline = AbortSignal.timeout(Math.max(0, Math.floor(askOptions.deadlineMs)));
      const signal =
        askOptions.signal === undefined ? deadline : AbortSignal.any([deadline, askOptions.signal]);
      const renewsInMs = await budget.spend(participant);
      if (renewsInMs !== undefined) {
        abandon();
        return fail('RESPONDER_BUSY', `rate budget spent, renews in ${renewsInMs} ms`, 'debug');
      }
      const peer = peerOf(participant);
      if (!(await peer.gate.enter(signal))) {
        abandon();
        return fail(
          'RESPONDER_BUSY',
          signal.aborted ? 'no call slot before the deadline' : 'call queue full',
          'debug',
        );
      }

      metrics.inFlight(participant, 1);
      const callStarted = performance.now();
      const callSeconds = () => (performance.now() - callStarted) / 1000;
      let outcome: ExchangeOutcome;
      try {
        outcome = await callEndpoints({ agent, now, requestId: newId() }, endpoints, check, {
          deadline,
          signal,
        });
      } finally {
        peer.gate.release();
        metrics.inFlight(participant, -1);
      }
      const cancelled = outcome.kind === 'failed' && signal.aborted && !deadline.aborted;
      if (cancelled) abandon();
      else {
        const failed = outcome.kind === 'failed' && outcome.responderDown;
        breaker(participant, { type: 'RecordResult', failed, probe, now: now().getTime() });
      }

      if (outcome.kind === 'answered') {
        const word = outcome.answer.partyNameMatch ?? outcome.answer.partyIdMatch ?? 'NOAP';
        metrics.countOutcome(participant, word);
        metrics.observeCall(participant, word, callSeconds());
        return { kind: 'answered', participant, bic, answer: outcome.answer, seconds: seconds() };
      }
      metrics.observeCall(participant, outcome.reason, callSeconds());
      if (outcome.ourRequestRefused === true)
        options.logger.error(
          { responder: participant, detail: outcome.detail },
          'a responder refused our request as malformed: a bug on our side',
        );
      return fail(outcome.reason, cancelled ? `cancelled; ${outcome.detail}` : outcome.detail);
    },
    async close() {
      await agent.close();
    },
  };
}
