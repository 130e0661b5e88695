import https from 'node:https';

/** What a bank's client presents: the scheme CA to check the bank, a certificate and its key. */
export interface ClientTls {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export interface BankAnswer {
  status: number;
  text: string;
}

/** One HTTPS request to a bank of the scheme over mutual TLS; the answer's status and text. */
export function requestBank(
  url: string,
  tls: ClientTls,
  request: { method: string; body?: string; contentType?: string; timeoutMs?: number },
): Promise<BankAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = https.request(
      url,
      {
        method: request.method,
        ca: tls.caPem,
        cert: tls.certPem,
        key: tls.keyPem,
        agent: false,
        timeout: request.timeoutMs ?? 10_000,
        headers: {
          ...(request.body !== undefined && {
            'content-type': request.contentType ?? 'application/json',
            'content-length': String(Buffer.byteLength(request.body)),
          }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer from ${url} in time`)));
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}
