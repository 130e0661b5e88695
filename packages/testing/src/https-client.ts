import https from 'node:https';

export interface JsonResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface HttpsClientOptions {
  baseUrl: string;
  caPem: string;
  certPem?: string;
  keyPem?: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is, instead of JSON of `body`. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

/** A small keep-alive HTTPS JSON client for tests, trusting the test CA (Node 20's fetch cannot take one). */
export function httpsClient(options: HttpsClientOptions) {
  const agent = new https.Agent({
    keepAlive: true,
    ca: options.caPem,
    ...(options.certPem !== undefined && { cert: options.certPem }),
    ...(options.keyPem !== undefined && { key: options.keyPem }),
  });
  async function request<T = any>(
    method: string,
    path: string,
    requestOptions: RequestOptions = {},
  ): Promise<JsonResponse<T>> {
    const payload =
      requestOptions.rawBody ??
      (requestOptions.body === undefined ? undefined : JSON.stringify(requestOptions.body));
    const headers: Record<string, string> = {
      ...(requestOptions.body !== undefined && { 'content-type': 'application/json' }),
      ...(payload !== undefined && { 'content-length': String(Buffer.byteLength(payload)) }),
      ...requestOptions.headers,
    };
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(path, options.baseUrl),
        { method, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = undefined;
            if (text.length > 0) {
              try {
                body = JSON.parse(text);
              } catch {
                body = text;
              }
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: body as T, text });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }
  return {
    request,
    get: <T = any>(path: string, requestOptions?: RequestOptions) =>
      request<T>('GET', path, requestOptions),
    post: <T = any>(path: string, body: unknown, requestOptions?: RequestOptions) =>
      request<T>('POST', path, { ...requestOptions, body }),
    put: <T = any>(path: string, body: unknown, requestOptions?: RequestOptions) =>
      request<T>('PUT', path, { ...requestOptions, body }),
    delete: <T = any>(path: string, requestOptions?: RequestOptions) =>
      request<T>('DELETE', path, requestOptions),
    close: () => agent.destroy(),
  };
}
export type HttpsClient = ReturnType<typeof httpsClient>;

/** Polls until `probe` returns a value (not undefined) or the time runs out. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${options.what ?? 'condition'}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
