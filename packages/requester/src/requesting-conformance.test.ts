import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  REQUESTING_CASES,
  runRequestingCase,
  type RequesterUnderTest,
  type RequestingResponders,
} from '@vop/conformance';
import { createLogger, createMetricsRegistry } from '@vop/observability';
import { createCertificateAuthority, issueCertificate } from '@vop/pki';
import { startScriptedResponder, type ScriptedResponder } from '@vop/testing';
import { createRequester } from './requester.js';
import type { PayeeCheck, Requester } from './types.js';

// Issue 40, item 7: the requesting-side cases of packages/conformance, run against our requester
// and two scripted endpoints of one responder.
describe('requesting-side conformance of createRequester', { timeout: 120_000 }, () => {
  let requester: Requester;
  let first: ScriptedResponder;
  let second: ScriptedResponder;
  let responders: RequestingResponders;

  before(async () => {
    const ca = await createCertificateAuthority({ commonName: 'Conformance scheme CA' });
    const client = await issueCertificate(ca, {
      commonName: 'requesting-psp',
      usage: 'client',
      organizationIdentifier: 'PSDXX-REQ-000001',
    });
    first = await startScriptedResponder({ ca });
    second = await startScriptedResponder({ ca });
    responders = { first, second };
    requester = createRequester({
      tls: { cert: client.certPem, key: client.keyPem, ca: ca.certPem },
      metrics: createMetricsRegistry({ service: 'conformance', collectDefaultMetrics: false }),
      logger: createLogger({ service: 'conformance', level: 'silent' }),
    });
  });
  after(async () => {
    await requester.close();
    await first.close();
    await second.close();
  });

  for (const testCase of REQUESTING_CASES) {
    it(`${testCase.id} ${testCase.description}`, async () => {
      const result = await runRequestingCase(requester, responders, testCase);
      assert.deepEqual(result.failures, [], JSON.stringify(result.verdict));
      assert.equal(result.outcome, 'passed');
    });
  }

  it('the runner fails a requester that names the wrong agent or retries what was sent', async () => {
    const wrongAgent: RequesterUnderTest = {
      ask: (responder, check, options) =>
        requester.ask(
          responder,
          { ...(check as PayeeCheck), requestingAgentBic: check.partyAgentBic },
          options,
        ),
    };
    const retrying: RequesterUnderTest = {
      ask: async (responder, check, options) => {
        const answer = await requester.ask(responder, check as PayeeCheck, options);
        if (answer.kind === 'answered') return answer;
        const [, backup] = responder.endpoints;
        return backup === undefined
          ? answer
          : requester.ask(
              { ...responder, participant: 'PSDXX-RETRY', endpoints: [backup] },
              check as PayeeCheck,
              options,
            );
      },
    };
    const byId = (id: string) => REQUESTING_CASES.find((testCase) => testCase.id === id)!;

    const agentResult = await runRequestingCase(wrongAgent, responders, byId('REQ-01'));
    const retryResult = await runRequestingCase(retrying, responders, byId('REQ-20'));

    assert.equal(agentResult.outcome, 'failed');
    assert.match(agentResult.failures.join(), /body/);
    assert.equal(retryResult.outcome, 'failed');
    assert.match(retryResult.failures.join(), /endpoint 2 received 1/);
  });
});
