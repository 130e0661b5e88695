import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { AddressGuard } from '@vop/address-guard';

/** The Standard Webhooks signer for a registration's secret: `whsec_<base64>`, else its bytes. */
export function signerFor(secret: string): Webhook {
  return secret.startsWith('whsec_')
    ? new Webhook(secret)
    : new Webhook(new TextEncoder().encode(secret), { format: 'raw' });
}

export type Signer = Webhook;

/** The three Standard Webhooks headers for one attempt (the id is the same on every retry). */
export function signedHeaders(
  signer: Signer,
  webhookId: string,
  at: Date,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign(webhookId, at, body),
  };
}

export type SendResult =
  | { kind: 'response'; statusCode: number; retryAfter: string | undefined }
  | { kind: 'timeout' | 'network_error' | 'address_refused'; error: string };

/**
 * POSTs one signed body with node:http(s): keep-alive agents whose `lookup` is the address guard's
 * (the resolved address is checked on every new connection), a deadline for the whole exchange,
 * and the response body discarded.
 */
export function createSender(options: { guard: AddressGuard; timeoutMs: number }) {
  const { guard, timeoutMs } = options;
  const agentOptions = { keepAlive: true, maxSockets: 256, lookup: guard.lookup };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };

  function send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const target = new URL(url);
    const refusal = guard.checkBeforeConnect(target);
    if (refusal) return Promise.resolve({ kind: 'address_refused', error: refusal });
    const client = target.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const request = client.request(target, {
        method: 'POST',
        agent: target.protocol === 'https:' ? agents.https : agents.http,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'vop-webhook-dispatcher/0.1',
        },
      });
      const timer = setTimeout(() => {
        finish({ kind: 'timeout', error: `no answer within ${timeoutMs} ms` });
        request.destroy();
      }, timeoutMs);
      request.on('response', (response) => {
        response.resume();
        response.on('end', () =>
          finish({
            kind: 'response',
            statusCode: response.statusCode ?? 0,
            retryAfter: header(response.headers['retry-after']),
          }),
        );
        response.on('error', (error) => finish({ kind: 'network_error', error: error.message }));
      });
      request.on('error', (error) =>
        finish(
          error.name === 'AddressRefusedError'
            ? { kind: 'address_refused', error: 'ADDRESS_NOT_ALLOWED' }
            : { kind: 'network_error', error: error.message },
        ),
      );
      request.end(body);
    });
  }

  return {
    send,
    close(): void {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
export type Sender = ReturnType<typeof createSender>;

const header = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;
