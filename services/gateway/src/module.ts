import { closeQuietly, startInOrder } from '@vop/lifecycle';
import type { topicNames } from '@vop/contracts';
import type { EventStore, SqlClient } from '@vop/event-store';
import type { Bus, PriorityGate, Subscription } from '@vop/messaging';
import type { Logger, ServiceMetrics } from '@vop/observability';
import type { PersonalData } from '@vop/personal-data';
import type { Router } from 'express';
import type { GatewaySecuritySettings } from './settings.js';

/**
 * One feature of the gateway as the composition root sees it. Each phase runs for every module, in
 * the order the root lists them, before the next phase begins; stop runs in reverse order, after every
 * module drained and the consumers closed.
 */
export interface GatewayModule {
  /** Mounted in the order the root lists the modules. */
  readonly routers?: readonly Router[];
  /** Tables and read models. */
  migrate?(): Promise<void>;
  /** Once every module has migrated: caches loaded, seeds written; nothing taken from the bus yet. */
  prepare?(): Promise<void>;
  /** Pushes each consumer as it opens it, so a start that fails half-way can close what it opened. */
  subscribe?(opened: Subscription[]): Promise<void>;
  /** Background work, once every module is subscribed. */
  run?(): Promise<void> | void;
  /** On stop, before any consumer closes: work in flight that still needs them finishes. */
  drain?(): Promise<void>;
  stop?(): Promise<void> | void;
}

/** What every module of one gateway shares: its connections, its store and its settings. */
export interface GatewayContext {
  sql: SqlClient;
  bus: Bus;
  logger: Logger;
  schema: string;
  /** Prefix of topics and consumer groups. */
  namespace: string;
  topics: ReturnType<typeof topicNames>;
  store: EventStore;
  personalData: PersonalData;
  security: GatewaySecuritySettings;
  environment: GatewaySecuritySettings['rateLimits']['environment'];
  instanceId: string;
  metrics?: ServiceMetrics;
  clock: () => Date;
  newId: () => string;
  /** Single checks first: what is bulk yields to them (single-checks-first.ts). */
  priorityGate: PriorityGate;
}

/** Runs one phase of every module, one after another. */
export async function eachModule(
  modules: readonly GatewayModule[],
  phase: (module: GatewayModule) => Promise<void> | void | undefined,
): Promise<void> {
  for (const module of modules) await phase(module);
}

/**
 * Migrates, prepares, subscribes and runs every module, phase by phase; `prepared` runs between
 * preparing and subscribing. A start that fails half-way closes the consumers it opened.
 */
export async function startModules(
  modules: readonly GatewayModule[],
  opened: Subscription[],
  prepared: () => Promise<void>,
): Promise<void> {
  await startInOrder([
    { start: () => eachModule(modules, (module) => module.migrate?.()) },
    { start: () => eachModule(modules, (module) => module.prepare?.()) },
    { start: prepared },
    {
      start: () => eachModule(modules, (module) => module.subscribe?.(opened)),
      stop: () => closeQuietly(opened),
    },
    { start: () => eachModule(modules, (module) => module.run?.()) },
  ]);
}

/** Drains every module, closes the consumers, then stops the modules in reverse order. */
export async function stopModules(
  modules: readonly GatewayModule[],
  opened: Subscription[],
): Promise<void> {
  await eachModule(modules, (module) => module.drain?.());
  for (const subscription of opened.splice(0)) await subscription.close();
  await eachModule([...modules].reverse(), (module) => module.stop?.());
}
