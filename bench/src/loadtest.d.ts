// The part of loadtest 8's API the benchmarks use (the package ships no types).
declare module 'loadtest' {
  export interface LoadTestOptions {
    url: string;
    method: 'POST';
    contentType: string;
    requestsPerSecond: number;
    maxSeconds: number;
    agentKeepAlive: boolean;
    /** Paths of the client certificate and key (PEM). */
    cert: string;
    key: string;
    quiet: boolean;
    body: () => string | undefined;
    /** Called with every answer (undefined on a connection error); `error` is set unless it was 2xx/3xx. */
    statusCallback: (error: unknown, answer: LoadTestAnswer | undefined) => void;
  }
  export interface LoadTestAnswer {
    statusCode: number;
    /** Milliseconds from sending to the whole answer. */
    requestElapsed: number;
  }
  export interface LoadTestResult {
    totalRequests: number;
    totalErrors: number;
    elapsedSeconds: number;
    clients: number;
    maxLatencyMs: number;
    errorCodes: Record<string, number>;
    percentiles: Record<'50' | '90' | '95' | '99', number | false>;
  }
  export function loadTest(options: LoadTestOptions): Promise<LoadTestResult>;
}
