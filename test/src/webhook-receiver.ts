import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A real HTTP webhook receiver on 127.0.0.1 that keeps what it received, in order of arrival. */
export interface WebhookReceiver {
  /** The receiver's URL with this path (any path is received). */
  url(path: string): string;
  readonly received: ReceivedWebhook[];
  close(): Promise<void>;
}

/** Answers 204 to every request, after `delayMs` (a receiver that takes its time) if given. */
export async function startWebhookReceiver(
  options: { delayMs?: number } = {},
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      if (options.delayMs === undefined) res.writeHead(204).end();
      else setTimeout(() => res.writeHead(204).end(), options.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
