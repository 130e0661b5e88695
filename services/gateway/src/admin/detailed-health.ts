import { principalHeaders, type Principal, type ServiceName } from '@vop/http';
import type { ServiceHealth } from '@vop/outbox';

export type ComponentStatus = 'up' | 'down';

/**
 * GET /health/detailed: PostgreSQL, Kafka, consumer lag and outbox lag of every service. `components`
 * repeats the gateway's own figures in the shape earlier clients read.
 */
export interface DetailedHealth {
  status: 'healthy' | 'degraded';
  version: string;
  uptime_seconds: number;
  components: {
    database: { status: ComponentStatus };
    bus: { status: ComponentStatus; durable: boolean };
    outbox: Array<{ name: string; status: ComponentStatus; lag: number | null }>;
  };
  services: ServiceHealth[];
}

export interface DetailedHealthSources {
  version: string;
  startedAt: number;
  /** The gateway's own report. */
  gateway: () => Promise<ServiceHealth>;
  /** Embedded run: the reports of the services composed in this process. */
  local: Array<() => Promise<ServiceHealth>>;
  /** Distributed run: the internal listeners to ask (their /health/detailed, with the caller's principal). */
  remote?: { serviceUrls: Partial<Record<ServiceName, string>>; internalSecret: string };
  principal: Principal | undefined;
  timeoutMs?: number;
}

function unreachable(service: string): ServiceHealth {
  return {
    service,
    status: 'degraded',
    database: { status: 'down' },
    kafka: { status: 'down', durable: true },
    consumers: [],
    outbox: [],
  };
}

async function askService(
  service: string,
  url: string,
  secret: string,
  principal: Principal,
  timeoutMs: number,
): Promise<ServiceHealth> {
  try {
    const response = await fetch(`${url}/health/detailed`, {
      headers: principalHeaders(principal, secret, new Date()),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) return unreachable(service);
    const body = (await response.json()) as { services?: ServiceHealth[] };
    return body.services?.[0] ?? unreachable(service);
  } catch {
    return unreachable(service);
  }
}

/** The admin's view of every service's dependencies; each probe is bounded so the answer stays within the deadline. */
export async function detailedHealth(sources: DetailedHealthSources): Promise<DetailedHealth> {
  const timeoutMs = sources.timeoutMs ?? 1000;
  const remote = sources.remote;
  const principal = sources.principal;
  const [gateway, ...others] = await Promise.all([
    sources.gateway(),
    ...sources.local.map((report) => report()),
    ...(remote && principal
      ? Object.entries(remote.serviceUrls).map(([service, url]) =>
          askService(service, url, remote.internalSecret, principal, timeoutMs + 500),
        )
      : []),
  ]);
  const services = [gateway as ServiceHealth, ...others];
  const own = gateway as ServiceHealth;
  return {
    status: services.every((service) => service.status === 'healthy') ? 'healthy' : 'degraded',
    version: sources.version,
    uptime_seconds: Math.floor((Date.now() - sources.startedAt) / 1000),
    components: {
      database: own.database,
      bus: { status: own.kafka.status, durable: own.kafka.durable },
      outbox: own.outbox.map((relay) => ({
        name: relay.name,
        status: relay.lag === null ? 'down' : 'up',
        lag: relay.lag,
      })),
    },
    services,
  };
}
