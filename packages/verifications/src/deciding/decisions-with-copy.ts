import type { EventStore } from '@vop/event-store';
import type { Bus } from '@vop/messaging';
import { createNameMatcher, type NameMatcher } from '@vop/name-matching';
import type { Logger, ServiceMetrics } from '@vop/observability';
import type { FieldCipher } from '@vop/personal-data';
import { AccountProjection, type AccountsAlongside } from './account-projection-consumer.js';
import { roundDecisions, type RoundDecisions } from './round-decisions.js';
import { recordDecision } from './decision-metrics.js';

/**
 * A service that decides what it records (the gateway's single checks, the batch service's entries)
 * keeps its own copy of the accounts, in `<store schema>_decisions` of its own database under the
 * consumer group `group`, and decides against it (docs/architecture.md, "Where a single check is
 * decided").
 */
export function decisionAccountCopy(options: {
  store: Pick<EventStore, 'sql' | 'schema'>;
  bus: Bus;
  logger: Logger;
  /** The copy's consumer group (namespaced). */
  group: string;
  /** The account events topic (namespaced). */
  topic: string;
  metrics?: ServiceMetrics;
  /** Another read model kept from the copy's deliveries (`AccountProjectionOptions.alongside`). */
  alongside?: AccountsAlongside;
}): AccountProjection {
  return new AccountProjection({
    sql: options.store.sql,
    bus: options.bus,
    logger: options.logger.child({ component: 'account-copy' }),
    schema: `${options.store.schema}_decisions`,
    groupId: options.group,
    topic: options.topic,
    ...(options.metrics && { metrics: options.metrics }),
    ...(options.alongside && { alongside: options.alongside }),
  });
}

/**
 * Decisions against a copy of the accounts: the service's own (`decisionAccountCopy`) or, embedded,
 * the one copy every deciding service of the process shares (services/embedded/src/service.ts).
 */
export function decisionsAgainst(
  accounts: AccountProjection,
  options: {
    store: EventStore;
    logger: Logger;
    cipher: FieldCipher;
    clock: () => Date;
    /** Default: the scheme's matcher. */
    matcher?: NameMatcher;
    metrics?: ServiceMetrics;
    /** Requests for accounts the copy does not hold are left undecided (round-decisions.ts). */
    leaveUnheld?: boolean;
  },
): RoundDecisions {
  const { store, logger } = options;
  return roundDecisions({
    store,
    accountsSchema: accounts.schema,
    accountCache: accounts.cache,
    matcher: options.matcher ?? createNameMatcher(),
    cipher: options.cipher,
    clock: options.clock,
    ...(options.leaveUnheld && { leaveUnheld: true }),
    ...(options.metrics && { onDecided: recordDecision(options.metrics) }),
    onUndecidable: (verificationId, error) =>
      // The error's message may quote the names compared: only its kind is logged.
      logger.error(
        { errorName: error instanceof Error ? error.name : typeof error, verificationId },
        'verification could not be decided; it ends as failed',
      ),
  });
}
