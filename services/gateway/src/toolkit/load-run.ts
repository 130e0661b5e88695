import autocannon from 'autocannon';
import type { SchemeSuiteTarget } from '@vop/conformance';

export interface LoadRunPlan {
  loadRunId: string;
  concurrentUsers: number;
  durationSeconds: number;
  rampUpSeconds: number;
  /** The verification request every user sends, again and again. */
  body: Record<string, unknown>;
}

export interface LoadRunFigures {
  loadRunId: string;
  status: 'running' | 'completed' | 'failed';
  requestsPerSecond: number;
  averageResponseTime: string;
  successRate: string;
  activeConnections: number;
  totalRequests: number;
  startedAt: string;
  endedAt?: string;
}

/**
 * One load run: each user is an autocannon instance with one keep-alive connection, started
 * evenly over the ramp-up and stopped at the end of the duration, all against the loopback
 * listener's POST /vop/verify with the toolkit's participant certificate.
 */
export class LoadRun {
  private readonly instances: autocannon.Instance[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private requests = 0;
  private successes = 0;
  private latencyTotalMs = 0;
  private active = 0;
  private status: LoadRunFigures['status'] = 'running';
  private readonly startedAt: Date;
  private endedAt: Date | undefined;
  readonly finished: Promise<void>;

  constructor(
    private readonly plan: LoadRunPlan,
    target: SchemeSuiteTarget,
    private readonly clock: () => Date,
  ) {
    this.startedAt = clock();
    const users = Array.from({ length: plan.concurrentUsers }, (_, user) => {
      const delayMs = (plan.rampUpSeconds * 1000 * user) / plan.concurrentUsers;
      return new Promise<void>((resolve) => {
        this.timers.push(
          setTimeout(() => {
            this.startUser(target, plan.durationSeconds - delayMs / 1000).then(resolve, resolve);
          }, delayMs),
        );
      });
    });
    this.finished = Promise.all(users).then(() => {
      if (this.status === 'running') this.status = 'completed';
      this.endedAt = clock();
    });
  }

  private startUser(target: SchemeSuiteTarget, seconds: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.status !== 'running') return resolve();
      this.active++;
      const instance = autocannon(
        {
          url: `${target.baseUrl}/vop/verify`,
          method: 'POST',
          connections: 1,
          duration: Math.max(seconds, 0.5),
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(this.plan.body),
          tlsOptions: { cert: target.participant.certPem, key: target.participant.keyPem },
        },
        () => {
          this.active--;
          resolve();
        },
      );
      instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
        this.requests++;
        this.latencyTotalMs += responseTimeMs;
        if (statusCode >= 200 && statusCode < 300) this.successes++;
      });
      instance.on('reqError', () => this.requests++);
      this.instances.push(instance);
    });
  }

  figures(): LoadRunFigures {
    const end = this.endedAt ?? this.clock();
    const elapsedSeconds = Math.max((end.getTime() - this.startedAt.getTime()) / 1000, 0.001);
    const share = this.requests === 0 ? 0 : (this.successes / this.requests) * 100;
    return {
      loadRunId: this.plan.loadRunId,
      status: this.status,
      requestsPerSecond: Math.round((this.requests / elapsedSeconds) * 10) / 10,
      averageResponseTime: `${this.requests === 0 ? 0 : Math.round(this.latencyTotalMs / this.requests)} ms`,
      successRate: `${share.toFixed(1)}%`,
      activeConnections: this.active,
      totalRequests: this.requests,
      startedAt: this.startedAt.toISOString(),
      ...(this.endedAt && { endedAt: this.endedAt.toISOString() }),
    };
  }

  get running(): boolean {
    return this.endedAt === undefined;
  }

  async stop(): Promise<void> {
    if (this.status === 'running') this.status = 'failed';
    for (const timer of this.timers) clearTimeout(timer);
    for (const instance of this.instances) instance.stop();
    await Promise.race([this.finished, new Promise((resolve) => setTimeout(resolve, 2000))]);
  }
}
