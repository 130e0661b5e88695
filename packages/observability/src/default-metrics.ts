import { createMetricsRegistry, type ServiceMetrics } from './service-metrics.js';

let processMetrics: ServiceMetrics | undefined;

/** Created on first use so that importing the package has no side effects. */
function processWide(): ServiceMetrics {
  processMetrics ??= createMetricsRegistry({ service: process.env['VOP_SERVICE_NAME'] ?? 'vop' });
  return processMetrics;
}

/**
 * The process-wide metrics, for code that has no ServiceMetrics handed to it. The service label comes from
 * VOP_SERVICE_NAME (default "vop"). Services that build their own registry should pass that one around instead.
 */
export const metrics: ServiceMetrics = {
  get service() {
    return processWide().service;
  },
  get registry() {
    return processWide().registry;
  },
  get httpRequestsTotal() {
    return processWide().httpRequestsTotal;
  },
  get httpRequestDuration() {
    return processWide().httpRequestDuration;
  },
  get verificationOutcomes() {
    return processWide().verificationOutcomes;
  },
  get matchingDuration() {
    return processWide().matchingDuration;
  },
  get outboxLag() {
    return processWide().outboxLag;
  },
  get consumerLag() {
    return processWide().consumerLag;
  },
  counter: (definition) => processWide().counter(definition),
  histogram: (definition) => processWide().histogram(definition),
  gauge: (definition) => processWide().gauge(definition),
};
