import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function installed(what: 'promtool' | 'server'): string {
  const script = path.join(repoRoot, 'infra/local/prometheus.sh');
  execFileSync('bash', [script, 'install'], { stdio: 'inherit' });
  return execFileSync('bash', [script, what], { encoding: 'utf8' }).trim();
}

/** Debian's promtool, installed into the cache by infra/local/prometheus.sh when missing. */
export function promtoolPath(): string {
  return installed('promtool');
}

export function prometheusPath(): string {
  return installed('server');
}

/**
 * Every metric family name the services serve (with the _bucket/_count/_sum series of histograms),
 * as registered in code: packages/observability, the lag gauges, the decisions' counters
 * (packages/verifications/src/deciding/decision-metrics.ts), matching, batch, webhooks, the
 * requester (packages/requester/src/requester-metrics.ts) and the embedded store's upkeep
 * (services/embedded/src/store-upkeep.ts, store-checkpoints.ts).
 */
export function servedMetricNames(): Set<string> {
  const histograms = [
    'http_request_duration_seconds',
    'matching_duration_seconds',
    'webhook_attempt_duration_seconds',
    'requester_request_duration_seconds',
    'store_upkeep_duration_seconds',
  ];
  return new Set([
    'up',
    'http_requests_total',
    'verification_outcomes_total',
    'verification_reasons_total',
    'verification_answers_total',
    'verification_noap_total',
    'consumer_lag',
    'outbox_lag_events',
    'batch_entries_answered_total',
    'webhook_attempts_total',
    'webhook_deliveries_total',
    'webhook_dead_letters_total',
    'webhook_queue_depth',
    'requester_requests_total',
    'requester_breaker_state',
    'requester_in_flight',
    'store_upkeep_total',
    'store_transaction_id_age',
    'store_wal_since_checkpoint_bytes',
    ...histograms.flatMap((name) => [name, `${name}_bucket`, `${name}_count`, `${name}_sum`]),
  ]);
}
