import { once } from 'node:events';
import { parentPort, Worker } from 'node:worker_threads';
import { z } from '@vop/contracts';
import type { Logger } from '@vop/observability';
import type { OutboxRelay } from './relay.js';

/** What a service holds of its relay, on its own thread or on this one. */
export interface RelayControl {
  start(): Promise<void>;
  stop(): Promise<void>;
  isReady(): boolean;
}

const FromRelayThread = z.discriminatedUnion('type', [
  z.object({ type: z.literal('started') }),
  z.object({ type: z.literal('ready') }),
  // What a start's retry policy reads (packages/lifecycle isTransientError): a database or broker still
  // coming up is waited out, as when the relay started on the main thread.
  z.object({
    type: z.literal('failed'),
    message: z.string(),
    name: z.string().optional(),
    code: z.string().optional(),
    retriable: z.boolean().optional(),
  }),
]);
type FromRelayThread = z.infer<typeof FromRelayThread>;

const ToRelayThread = z.object({ type: z.literal('stop') });

const FIRST_RESTART_DELAY_MS = 100;
const LAST_RESTART_DELAY_MS = 5_000;
/** A relay stops within its own settle wait (2 s) and a checkpoint write; then the thread is ended. */
const STOP_WAIT_MS = 10_000;

export interface OutboxRelayThreadOptions {
  /** The thread's module: it builds the relay with connections of its own and calls `serveRelayThread`. */
  entry: URL;
  /** Structured-clonable settings for the module (`workerData`). */
  workerData: unknown;
  logger: Logger;
}

/**
 * An outbox relay on a worker thread of its own. Reading the outbox, encoding a publication (kafkajs
 * encodes every record on the thread that sends it) and waiting for the broker then never sit in front
 * of a request on the process's main thread (docs/performance.md, "Why the single-check path is shaped so"). The
 * thread opens its own database and broker connections, so nothing crosses between the threads but
 * start, readiness and stop; the wake-up after an append reaches it as it reaches any other process
 * (the store's `onAppend`). A thread that ends unexpectedly is started again, with backoff, and the
 * relay is not ready meanwhile; its lease is the same instance's, so the new one takes it over at once.
 */
export class OutboxRelayThread implements RelayControl {
  private worker: Worker | undefined;
  private ready = false;
  private stopping = false;
  private restartDelayMs = FIRST_RESTART_DELAY_MS;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: OutboxRelayThreadOptions) {}

  async start(): Promise<void> {
    this.stopping = false;
    await this.spawn();
  }

  isReady(): boolean {
    return this.ready;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (worker === undefined) return;
    const exited = once(worker, 'exit');
    worker.postMessage({ type: 'stop' } satisfies z.infer<typeof ToRelayThread>);
    const timer = setTimeout(() => void worker.terminate(), STOP_WAIT_MS);
    await exited;
    clearTimeout(timer);
  }

  /** Resolves once the thread's relay has started; rejects (and ends the thread) if it cannot. */
  private spawn(): Promise<void> {
    const { logger } = this.options;
    return new Promise<void>((resolve, reject) => {
      const worker = new Worker(this.options.entry, { workerData: this.options.workerData });
      this.worker = worker;
      let started = false;
      const refuse = (error: Error) => {
        if (started) return;
        void worker.terminate();
        reject(error);
      };
      worker.on('message', (raw: unknown) => {
        const parsed = FromRelayThread.safeParse(raw);
        if (!parsed.success) {
          logger.error({ issues: parsed.error.issues }, 'unexpected message from the relay thread');
          return;
        }
        const message: FromRelayThread = parsed.data;
        if (message.type === 'started') {
          started = true;
          this.restartDelayMs = FIRST_RESTART_DELAY_MS;
          resolve();
        } else if (message.type === 'ready') this.ready = true;
        else if (message.type === 'failed') {
          const { message: text, type: _type, ...fields } = message;
          refuse(Object.assign(new Error(text), fields));
        }
      });
      worker.on('error', (error) => {
        logger.error({ err: error }, 'outbox relay thread failed');
        refuse(error);
      });
      worker.on('exit', (code) => {
        if (this.worker === worker) this.worker = undefined;
        this.ready = false;
        if (!started) {
          reject(new Error(`the outbox relay thread ended with code ${code} before it started`));
          return;
        }
        if (this.stopping) return;
        logger.error({ code }, 'outbox relay thread ended; starting it again');
        this.scheduleRestart();
      });
    });
  }

  private scheduleRestart(): void {
    const delay = this.restartDelayMs;
    this.restartDelayMs = Math.min(delay * 2, LAST_RESTART_DELAY_MS);
    this.restartTimer = setTimeout(() => {
      if (this.stopping) return;
      this.spawn().catch((error: unknown) => {
        this.options.logger.error({ err: error }, 'outbox relay thread did not start; retrying');
        if (!this.stopping) this.scheduleRestart();
      });
    }, delay);
  }
}

/**
 * The thread's side (its module calls this once): builds the relay, starts it, reports readiness, and
 * on stop stops the relay, closes the thread's connections and ends the thread.
 */
export async function serveRelayThread(
  build: () => Promise<{ relay: OutboxRelay; close: () => Promise<void> }>,
): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('serveRelayThread runs on a worker thread');
  const send = (message: FromRelayThread) => port.postMessage(message);
  let built: Awaited<ReturnType<typeof build>> | undefined;
  try {
    built = await build();
    await built.relay.start();
  } catch (error) {
    send(failure(error));
    await built?.close().catch(() => undefined);
    process.exit(1);
  }
  const { relay, close } = built;
  send({ type: 'started' });
  // The relay turns ready once, when its first lease decision is made, and stays so until it stops.
  void relay.whenFirstReady().then(() => send({ type: 'ready' }));
  port.on('message', (raw: unknown) => {
    if (!ToRelayThread.safeParse(raw).success) return;
    // The parent waits for the thread to end, not for a message.
    void relay
      .stop()
      .then(close)
      .then(() => process.exit(0));
  });
}

/** The 'failed' message for an error: its message and the fields a retry policy reads. */
function failure(error: unknown): FromRelayThread {
  const { name, code, retriable } = (error ?? {}) as Record<string, unknown>;
  return {
    type: 'failed',
    message: error instanceof Error ? error.message : String(error),
    ...(typeof name === 'string' && { name }),
    ...(typeof code === 'string' && { code }),
    ...(typeof retriable === 'boolean' && { retriable }),
  };
}
