import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metrics } from './default-metrics.js';

describe('process-wide metrics', () => {
  it('is one registry, labelled with the service from VOP_SERVICE_NAME or "vop"', async () => {
    assert.equal(metrics.registry, metrics.registry);
    assert.equal(metrics.service, process.env['VOP_SERVICE_NAME'] ?? 'vop');
    const probe = { name: 'default_registry_probe_total', help: 'probe' };
    metrics.counter(probe).inc();
    assert.equal(metrics.counter(probe), metrics.counter(probe));
    const exposition = await metrics.registry.metrics();
    assert.match(exposition, new RegExp(`^default_registry_probe_total\\{service="${metrics.service}"\\} 1$`, 'm'));
  });
});
