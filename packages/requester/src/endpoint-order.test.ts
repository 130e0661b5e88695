import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endpointsInOrder } from './endpoint-order.js';

const responder = (endpoints: { uri: string; priority: number }[]) => ({
  participant: 'PSDDE-BAFIN-000001',
  bic: 'COBADEFFXXX',
  endpoints,
});

describe("a responder's endpoints", () => {
  it('given endpoints out of order, then priority 1 comes first, each on the verification path', () => {
    const { endpoints } = endpointsInOrder(
      responder([
        { uri: 'https://backup.example/vop/v1/', priority: 2 },
        { uri: 'https://vop.example/vop/v1', priority: 1 },
      ]),
    );

    assert.deepEqual(
      endpoints.map((endpoint) => endpoint.url.href),
      [
        'https://vop.example/vop/v1/payee-verifications',
        'https://backup.example/vop/v1/payee-verifications',
      ],
    );
  });

  it('given an http endpoint or no URL, then it is refused and never listed to call', () => {
    const { endpoints, refused } = endpointsInOrder(
      responder([
        { uri: 'http://vop.example/vop/v1', priority: 1 },
        { uri: 'vop.example', priority: 2 },
      ]),
    );

    assert.deepEqual(endpoints, []);
    assert.deepEqual(refused, ['endpoint 1: not https', 'endpoint 2: not a URL']);
  });
});
