import type { Responder } from './types.js';

export interface Endpoint {
  priority: number;
  url: URL;
}

/**
 * The responder's endpoints to try, priority 1 first, each as the verification URL; an endpoint that
 * is no https URL is never called (our certificate and the payee's data go over mutual TLS only).
 */
export function endpointsInOrder(responder: Responder): {
  endpoints: Endpoint[];
  refused: string[];
} {
  const endpoints: Endpoint[] = [];
  const refused: string[] = [];
  const sorted = [...responder.endpoints].sort((a, b) => a.priority - b.priority);
  for (const { uri, priority } of sorted) {
    const url = URL.canParse(uri) ? new URL(uri) : undefined;
    if (url?.protocol !== 'https:') {
      refused.push(`endpoint ${priority}: ${url === undefined ? 'not a URL' : 'not https'}`);
      continue;
    }
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/payee-verifications`;
    endpoints.push({ priority, url });
  }
  return { endpoints, refused };
}
