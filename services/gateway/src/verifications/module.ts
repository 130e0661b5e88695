import type { VerificationEnd, VerificationRequestedData } from '@vop/contracts';
import type { DirectRoute, ReadinessCheck } from '@vop/http';
import type { NameMatcher } from '@vop/name-matching';
import {
  type AccountCopyAtCommit,
  type AccountProjection,
  type DecideRound,
  decisionsAgainst,
  verificationRecorder,
  withPayeeBankAnswers,
} from '@vop/verifications';
import type { GatewayContext, GatewayModule } from '../module.js';
import type { RequesterCheck } from '../scheme-directory/requester-check.js';
import { DEFAULT_TYPED_NAME_RETENTION_MS } from '../settings.js';
import {
  createTimeoutSweeper,
  DEFAULT_FAILURE_LIMITS,
} from '../verification-failures/timeout-sweeper.js';
import { accountNumberVerificationRoutes } from './account-number-routes.js';
import { subscribeToCompletions, waitersGroupId } from './completion-consumers.js';
import { immediateVerificationRoutes } from './immediate-routes.js';
import {
  findEndedVerifications,
  migrateVerificationsReadModel,
  pendingVerificationsWrite,
  verificationsWrite,
} from './read-model.js';
import { verificationRoutes } from './routes.js';
import { synchronousVerifier, type RoutedChecks } from './synchronous.js';
import { TypedNameRetention } from './typed-name-retention.js';
import { CompletionWaiters } from './waiters.js';
import { gatewayAccountCopy } from './account-copy.js';

export interface VerificationsModuleOptions {
  requesters: RequesterCheck;
  verifyDeadlineMs: number;
  /** `gateway`: decided in the statement that records them, with `matcher`; `matching`: over the bus. */
  singleChecksDecidedBy: 'gateway' | 'matching';
  matcher?: NameMatcher;
  recordingRoundsInFlight?: number;
  recordingRoundGatherMs?: number;
  /** The requesting side: customers' checks about payees at other banks (requesting/module.ts). */
  routed?: RoutedChecks;
  /** The copy to decide against, when made before the gateway (GatewayOptions.accountCopy). */
  accountCopy?: AccountProjection;
}

/**
 * Every family that verifies a payee, the waiters that answer its callers, the copy of the accounts a
 * check is decided against here, and the jobs that end or forget verifications.
 */
export function verificationsModule(
  context: GatewayContext,
  options: VerificationsModuleOptions,
): GatewayModule & {
  direct: DirectRoute[];
  /** This gateway's copy of the accounts, when it decides single checks or was given one; none otherwise. */
  copies: AccountCopyAtCommit[];
  readiness: ReadinessCheck[];
  consumers(): Array<{ groupId: string; topics: string[] }>;
  /** Our own decisions against this gateway's copy; none when single checks are left to matching. */
  localDecisions: DecideRound | undefined;
} {
  const { sql, schema, store, bus, topics, namespace } = context;
  const deciding =
    options.singleChecksDecidedBy === 'gateway'
      ? decidingHere(context, options.matcher, options.accountCopy)
      : undefined;
  // A copy made before the gateway is kept here even when matching decides: the services beside it read it.
  const accountCopy = deciding?.accounts ?? options.accountCopy;
  const waiters = new CompletionWaiters({
    lookup: (ids) => findEndedVerifications(sql, schema, ids),
  });
  const verifierOptions = recordingVerifier(context, options, waiters, deciding?.decisions);
  const verifier = synchronousVerifier(verifierOptions);
  const routes = verificationRoutes({ ...verifierOptions, store, requesters: options.requesters });
  const jobs = endingJobs(context);
  return {
    localDecisions: deciding?.decisions.decide,
    direct: routes.direct,
    copies: accountCopy ? [accountCopy.atCommit()] : [],
    readiness: accountCopy ? [{ name: 'accounts', check: () => accountCopy.checkCaughtUp() }] : [],
    consumers: () => [
      ...(accountCopy ? [accountCopy.group] : []),
      {
        groupId: `${namespace}gateway-verification-results`,
        topics: [topics.verificationCompleted],
      },
      // This instance's waiters group only while it is subscribed (completion-consumers.ts).
      ...(bus.subscribedGroups?.() ?? []).filter(
        ({ groupId }) => groupId === waitersGroupId(namespace, context.instanceId),
      ),
    ],
    routers: [
      // The single checks first: their paths are no other router's (see verificationRoutes).
      routes.scheme,
      // Family D before family B: both are POST /verify, told apart by the body.
      accountNumberVerificationRoutes({ verifier, sql, schema }),
      immediateVerificationRoutes(verifier),
      routes.others,
    ],
    async migrate() {
      await migrateVerificationsReadModel(sql, schema);
      await accountCopy?.migrate();
    },
    async prepare() {
      await accountCopy?.listen();
    },
    async subscribe(opened) {
      opened.push(
        ...(await subscribeToCompletions({
          bus,
          sql,
          schema,
          instanceId: context.instanceId,
          waiters,
          topic: topics.verificationCompleted,
          groupPrefix: namespace,
          logger: context.logger,
        })),
      );
      if (accountCopy) opened.push(await accountCopy.subscribe());
    },
    run: () => jobs.start(),
    async stop() {
      await jobs.stop();
      await accountCopy?.stop();
    },
  };
}

/**
 * Single checks decided in the statement that records them, against this gateway's own copy of the
 * accounts (docs/architecture.md, "Where a single check is decided"): a caller is answered at commit,
 * without the round trip through Kafka and matching.
 */
function decidingHere(
  context: GatewayContext,
  matcher: NameMatcher | undefined,
  made: AccountProjection | undefined,
) {
  const accounts =
    made ??
    gatewayAccountCopy({
      sql: context.store.sql,
      schema: context.store.schema,
      bus: context.bus,
      logger: context.logger,
      namespace: context.namespace,
      ...(context.metrics && { metrics: context.metrics }),
    });
  const decisions = decisionsAgainst(accounts, {
    store: context.store,
    logger: context.logger,
    cipher: context.personalData.cipher,
    clock: context.clock,
    ...(matcher && { matcher }),
    ...(context.metrics && { metrics: context.metrics }),
  });
  return { accounts, decisions };
}

/** What every family that answers at once records with and waits with. */
function recordingVerifier(
  context: GatewayContext,
  options: VerificationsModuleOptions,
  waiters: CompletionWaiters,
  decisions: ReturnType<typeof decidingHere>['decisions'] | undefined,
) {
  const { schema, personalData, clock } = context;
  const local = decisions?.decide;
  // A round's requests answered by their payee banks end with those answers; the rest are ours.
  const decide =
    options.routed === undefined
      ? local
      : withPayeeBankAnswers({
          answers: options.routed.answers,
          local,
          cipher: personalData.cipher,
          clock,
        });
  return {
    record: verificationRecorder({
      store: context.store,
      cipher: personalData.cipher,
      inline: (requests: VerificationRequestedData[], ends: VerificationEnd[]) =>
        ends.length === 0
          ? pendingVerificationsWrite(schema, requests)
          : verificationsWrite(schema, requests, ends),
      // Its callers are answered with the ends record() gives: no waiter is notified of them.
      ...(decide && { decide }),
      clock,
      roundsInFlight: options.recordingRoundsInFlight,
      roundGatherMs: options.recordingRoundGatherMs,
    }),
    decidedAtRecording: decisions !== undefined,
    waiters,
    cipher: personalData.cipher,
    deadlineMs: options.verifyDeadlineMs,
    clock,
    newId: context.newId,
    ...(options.routed && { routed: options.routed }),
  };
}

/** The jobs that end verifications left without an outcome and forget typed names. */
function endingJobs(context: GatewayContext) {
  const timeoutSweeper = createTimeoutSweeper({
    store: context.store,
    limits: context.security.verificationFailures ?? DEFAULT_FAILURE_LIMITS,
    logger: context.logger.child({ component: 'verification-timeouts' }),
    clock: context.clock,
  });
  const typedNameRetention = new TypedNameRetention(
    context.personalData.keys,
    context.security.typedNameRetentionMs ?? DEFAULT_TYPED_NAME_RETENTION_MS,
    context.logger,
    context.clock,
  );
  return {
    async start() {
      await timeoutSweeper.start();
      typedNameRetention.start();
    },
    async stop() {
      await timeoutSweeper.stop();
      typedNameRetention.stop();
    },
  };
}
