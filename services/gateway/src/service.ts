import { randomUUID } from 'node:crypto';
import { RELEASE_VERSION } from '@vop/config';
import { TOPIC_PARTITIONS, topicNames } from '@vop/contracts';
import { EventStore } from '@vop/event-store';
import { createHttpApp } from '@vop/http';
import { PriorityGate, type Subscription } from '@vop/messaging';
import { createPersonalData } from '@vop/personal-data';
import { copiesAtCommit } from '@vop/verifications';
import type { Express } from 'express';
import { accountsModule } from './accounts/module.js';
import { adminModule } from './admin/module.js';
import { gatewayEdge } from './edge.js';
import { startModules, stopModules, type GatewayContext } from './module.js';
import type { Gateway, GatewayOptions } from './options.js';
import { operationsModule } from './operations/module.js';
import { outboxModule } from './outbox/module.js';
import { pageRoutes } from './pages/page-routes.js';
import { requestingModule } from './requesting/module.js';
import { BANK_CODES_BODY_LIMIT, BANK_CODES_PATH } from './scheme-directory/bank-code-routes.js';
import { schemeDirectoryModule } from './scheme-directory/module.js';
import { SCHEME_DIRECTORY_BODY_LIMIT, SCHEME_DIRECTORY_PATH } from './scheme-directory/routes.js';
import { DEFAULT_SECURITY } from './settings.js';
import { toolkitModule } from './toolkit/module.js';
import { verificationsModule } from './verifications/module.js';

export const GATEWAY_SCHEMA = 'gateway';
export const SERVICE_VERSION = RELEASE_VERSION;
export type { Gateway, GatewayOptions } from './options.js';

/**
 * The one public edge: validates, turns requests into events and answers synchronous callers. Each
 * feature is a module (module.ts); this root lists them, mounts their routers and runs their phases.
 */
export function createGateway(options: GatewayOptions): Gateway {
  const context = gatewayContext(options);
  let shuttingDown = false;
  const features = featureModules(context, options, {
    isShuttingDown: () => shuttingDown,
    app: () => app,
  });
  const edge = gatewayEdge({
    ...(options.metrics && { metrics: options.metrics }),
    ...(options.clientCertificates && { clientCertificates: options.clientCertificates }),
    ...(options.forwarding && { forwarding: options.forwarding }),
    ...features.edge,
    environment: context.environment,
    logger: context.logger,
    clock: context.clock,
  });
  const app = createHttpApp({
    logger: context.logger,
    respondingPsp: options.respondingPsp,
    largeBodyPaths: { [SCHEME_DIRECTORY_PATH]: SCHEME_DIRECTORY_BODY_LIMIT },
    csvBodyPaths: { [BANK_CODES_PATH]: BANK_CODES_BODY_LIMIT },
    beforeRoutes: edge.beforeRoutes,
    // The pages first: the HTML view of /admin/stats is the gateway's, its JSON the owner's.
    forwarders: [pageRoutes({ testPage: context.environment === 'test' }), ...edge.forwarders],
    directRoutes: features.direct,
    routers: [
      ...features.modules.flatMap((module) => module.routers ?? []),
      ...(options.serviceRouters ?? []),
    ],
  });
  const subscriptions: Subscription[] = [];
  const topicSpecs = Object.values(context.topics).map((name) => ({
    name,
    partitions: TOPIC_PARTITIONS,
  }));
  return {
    app,
    store: context.store,
    priorityGate: context.priorityGate,
    async start() {
      await startModules(features.modules, subscriptions, () =>
        context.bus.ensureTopics(topicSpecs),
      );
      context.logger.info({ instanceId: options.instanceId }, 'gateway started');
    },
    async stop() {
      shuttingDown = true;
      await stopModules(features.modules, subscriptions);
    },
  };
}

/** The gateway's features in the order their routers mount and their phases run. */
function featureModules(
  context: GatewayContext,
  options: GatewayOptions,
  root: { isShuttingDown: () => boolean; app: () => Express },
) {
  const decidedBy = options.singleChecksDecidedBy ?? 'gateway';
  const outbox = outboxModule(context, {
    relayOnThread: options.relayOnThread,
    decidedAtRecording: decidedBy === 'gateway',
    accountEventsReadAtCommit: options.accountEventsReadAtCommit === true,
  });
  const directory = schemeDirectoryModule(context);
  const requesting =
    options.requesting &&
    requestingModule(context, {
      settings: options.requesting,
      payeeBanks: directory.payeeBanks,
      localDecisions: () => verifications.localDecisions,
    });
  const verifications = verificationsModule(context, {
    requesters: directory.requesters,
    ...(requesting && { routed: requesting.routed }),
    verifyDeadlineMs: options.verifyDeadlineMs,
    singleChecksDecidedBy: decidedBy,
    ...(options.matcher && { matcher: options.matcher }),
    recordingRoundsInFlight: options.recordingRoundsInFlight,
    recordingRoundGatherMs: options.recordingRoundGatherMs,
    ...(options.accountCopy && { accountCopy: options.accountCopy }),
  });
  const admin = adminModule(context);
  // Every copy of the accounts a decision reads that this database holds is written with the account
  // write itself: a check sent once the write was answered sees it (read your writes).
  const copy = copiesAtCommit([...verifications.copies, ...(options.accountCopiesAtCommit ?? [])]);
  const accounts = accountsModule(context, {
    copy,
    audit: admin.audit,
    ...(options.importChunkRows !== undefined && { importChunkRows: options.importChunkRows }),
    ...(options.importLeastShare !== undefined && { importLeastShare: options.importLeastShare }),
  });
  const operations = operationsModule(context, {
    relay: outbox.relay,
    isShuttingDown: root.isShuttingDown,
    consumers: verifications.consumers,
    readiness: [
      ...verifications.readiness,
      ...(requesting ? [{ name: 'routing-outbox', check: requesting.readiness }] : []),
      ...(options.extraReadinessChecks ?? []),
    ],
    ...(options.serviceHealth && { serviceHealth: options.serviceHealth }),
    ...(options.forwarding && { forwarding: options.forwarding }),
  });
  const toolkit = toolkitModule(context, {
    accountWrites: accounts.writes,
    sandbox: options.testToolkit,
    trustAnchorsPem: options.clientCertificates?.trustAnchorsPem,
    app: root.app,
  });
  return {
    modules: [
      outbox,
      verifications,
      operations,
      accounts,
      admin,
      directory,
      ...(requesting ? [requesting] : []),
      toolkit,
    ],
    direct: verifications.direct,
    edge: { apiKeys: admin.apiKeys, audit: admin.audit, rateLimits: admin.rateLimits },
  };
}

/** What every module shares, from the options and their defaults. */
function gatewayContext(options: GatewayOptions): GatewayContext {
  const { sql } = options;
  const schema = options.schema ?? GATEWAY_SCHEMA;
  const namespace = options.namespace ?? '';
  const security = options.security ?? DEFAULT_SECURITY;
  return {
    sql,
    bus: options.bus,
    logger: options.logger,
    schema,
    namespace,
    topics: topicNames(namespace),
    store: new EventStore(sql, { schema }),
    personalData: createPersonalData(sql),
    security,
    environment: security.rateLimits.environment,
    instanceId: options.instanceId,
    ...(options.metrics && { metrics: options.metrics }),
    clock: options.clock ?? (() => new Date()),
    newId: options.newId ?? randomUUID,
    priorityGate:
      options.priorityGate ??
      new PriorityGate({ ...GATEWAY_PRIORITIES, lowShare: options.importShare ?? 0.8 }),
  };
}

/**
 * A bulk import's units start when no single check is in flight (at most 10 ms late), and take at
 * most `importShare` of the time while checks come (default four fifths: VOP_IMPORT_SHARE).
 */
const GATEWAY_PRIORITIES = { maxWaitMs: 10 };
