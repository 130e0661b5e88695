import type { RequestingSettings } from './requesting/module.js';
import type { EventStore, SqlClient } from '@vop/event-store';
import type { ReadinessCheck } from '@vop/http';
import type { Bus, PriorityGate } from '@vop/messaging';
import type { NameMatcher } from '@vop/name-matching';
import type { Logger, ServiceMetrics } from '@vop/observability';
import type { ServiceHealth } from '@vop/outbox';
import type { AccountCopyAtCommit, AccountProjection } from '@vop/verifications';
import type { Express, Router } from 'express';
import type { GatewayEdgeOptions } from './edge.js';
import type { GatewaySecuritySettings } from './settings.js';
import type { SandboxOptions } from './toolkit/sandbox.js';

export interface GatewayOptions {
  sql: SqlClient;
  bus: Bus;
  logger: Logger;
  instanceId: string;
  respondingPsp: string;
  verifyDeadlineMs: number;
  schema?: string;
  /** Prefix of topics and consumer groups (VOP_KAFKA_NAMESPACE). */
  namespace?: string;
  extraReadinessChecks?: ReadinessCheck[];
  metrics?: ServiceMetrics;
  /** Mutual TLS: trust anchors and the admin certificate; /vop/* then needs a valid client certificate. */
  clientCertificates?: GatewayEdgeOptions['clientCertificates'];
  /** Environment, keys and rate limits; defaults: test environment, no development key, default limits. */
  security?: GatewaySecuritySettings;
  /** Embedded run: the routers of the services composed in this process, mounted behind this edge. */
  serviceRouters?: Router[];
  /** Embedded run: the health reports of the services composed in this process (GET /health/detailed). */
  serviceHealth?: Array<() => Promise<ServiceHealth>>;
  /** Distributed run: where the families of other services are forwarded (packages/http/src/forward.ts). */
  forwarding?: GatewayEdgeOptions['forwarding'];
  clock?: () => Date;
  newId?: () => string;
  /**
   * Where single checks are decided (VOP_SINGLE_CHECKS_DECIDED_BY): `gateway` (default) in the statement
   * that records them, with `matcher` (default: the scheme's); `matching` over the bus.
   */
  singleChecksDecidedBy?: 'gateway' | 'matching';
  /**
   * The requesting side (issue 40): our customers' checks about payees at other banks are sent to
   * those banks. Absent: every check is decided against our own accounts, as a responder only.
   */
  requesting?: RequestingSettings;
  matcher?: NameMatcher;
  /** Rows per transaction of a bulk account import (default by database: see accounts/import). */
  importChunkRows?: number;
  /** The least share of its pace a bulk import keeps while single checks slow it (0.05: import-pacer.ts). */
  importLeastShare?: number;
  /**
   * The process's priorities (embedded: the one every service shares). Default: the gateway's own,
   * where the bulk import takes at most four fifths of the time while single checks come.
   */
  priorityGate?: PriorityGate;
  /** With the gateway's own gate: the share of time a bulk import may take while single checks come (0.8). */
  importShare?: number;
  /**
   * Copies of the accounts other services keep in this gateway's database (embedded: batch's and
   * matching's), written with each account write as the gateway's own copy is.
   */
  accountCopiesAtCommit?: AccountCopyAtCommit[];
  /**
   * Every reader of the account events is among the copies written at commit (embedded: the one copy,
   * batch's domestic accounts and analytics' accounts, in this one database): the relay publishes no
   * account event appended from its start on (packages/outbox/src/relay.ts, `readAtCommit`). Not with
   * `relayOnThread`.
   */
  accountEventsReadAtCommit?: boolean;
  /**
   * The copy of the accounts single checks are decided against, made before the gateway so that the
   * services beside it in one process decide against the same copy (embedded: `gatewayAccountCopy`);
   * default: one of its own. Either way the gateway keeps it: migrates it, writes it at commit,
   * consumes its events.
   */
  accountCopy?: AccountProjection;
  /** Test deployments: the CA the test toolkit issues its certificates from (the edge must trust it). */
  testToolkit?: SandboxOptions;
  /**
   * Distributed run: the outbox relay on a thread of its own, with its own connections from the
   * process's configuration (outbox/relay-thread.ts). Default: on this thread, with `sql` and `bus`.
   */
  relayOnThread?: boolean;
  /** Rounds of single checks recorded at once (packages/verifications/src/recorder.ts); default 1. */
  recordingRoundsInFlight?: number;
  /** The least time between the starts of two recording rounds (packages/verifications/src/recorder.ts). */
  recordingRoundGatherMs?: number;
}

export interface Gateway {
  readonly app: Express;
  readonly store: EventStore;
  /**
   * Single checks first: the edge holds its high priority for each single check
   * (single-checks-first.ts), and the bulk import yields to them.
   */
  readonly priorityGate: PriorityGate;
  start(): Promise<void>;
  /** Stops taking work: readiness turns 503, consumers and the relay stop. */
  stop(): Promise<void>;
}
