import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Subscription } from '@vop/messaging';
import { startModules, stopModules, type GatewayModule } from './module.js';

/** Modules that write each phase they go through to `log`; `failing` throws when it subscribes. */
function modules(log: string[], names: string[], failing?: string): GatewayModule[] {
  return names.map((name) => ({
    migrate: async () => void log.push(`migrate ${name}`),
    prepare: async () => void log.push(`prepare ${name}`),
    subscribe: async (opened: Subscription[]) => {
      if (name === failing) throw new Error(`${name} failed`);
      opened.push({ close: async () => void log.push(`close ${name}`) });
    },
    run: () => void log.push(`run ${name}`),
    drain: async () => void log.push(`drain ${name}`),
    stop: () => void log.push(`stop ${name}`),
  }));
}

describe('the gateway modules', () => {
  it('given two modules, when started, then each phase runs over both before the next', async () => {
    const log: string[] = [];
    await startModules(modules(log, ['a', 'b']), [], async () => void log.push('prepared'));
    assert.deepEqual(log, [
      'migrate a',
      'migrate b',
      'prepare a',
      'prepare b',
      'prepared',
      'run a',
      'run b',
    ]);
  });

  it('given started modules, when stopped, then all drain, consumers close, modules stop in reverse', async () => {
    const log: string[] = [];
    const list = modules(log, ['a', 'b']);
    const opened: Subscription[] = [];
    await startModules(list, opened, async () => undefined);
    log.length = 0;
    await stopModules(list, opened);
    assert.deepEqual(log, ['drain a', 'drain b', 'close a', 'close b', 'stop b', 'stop a']);
    assert.deepEqual(opened, []);
  });

  it('given a module that fails to subscribe, then the consumers opened before it close', async () => {
    const log: string[] = [];
    const opened: Subscription[] = [];
    await assert.rejects(
      startModules(modules(log, ['a', 'b'], 'b'), opened, async () => undefined),
      /b failed/,
    );
    assert.equal(log.at(-1), 'close a');
    assert.ok(!log.some((entry) => entry.startsWith('run')));
    assert.deepEqual(opened, []);
  });
});
