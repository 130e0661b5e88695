import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { eventually } from '@vop/testing';
import { periodicJob } from './periodic-job.js';

describe('periodic job', () => {
  it('never starts a run while the previous one is going, and runs again once it ended', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const job = periodicJob({
      intervalMs: 1,
      run: async () => {
        runs++;
        if (runs === 1) await blocked;
      },
      onError: (error) => assert.fail(String(error)),
    });
    job.start();
    await eventually(async () => (runs === 1 ? true : undefined), { what: 'the first run' });
    await sleep(30); // many ticks while the first run is blocked
    assert.equal(runs, 1);
    release();
    await eventually(async () => (runs >= 2 ? true : undefined), { what: 'a second run' });
    await job.stop();
  });

  it('hands a failed run to onError and tries again at the next tick', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const job = periodicJob({
      intervalMs: 1,
      run: async () => {
        runs++;
        if (runs === 1) throw new Error('first run fails');
      },
      onError: (error) => errors.push(error),
    });
    job.start();
    await eventually(async () => (runs >= 2 ? true : undefined), {
      what: 'a run after the failure',
    });
    await job.stop();
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /first run fails/);
  });

  it('stop waits for the run in progress and no run starts after it', async () => {
    let finished = false;
    let runs = 0;
    const job = periodicJob({
      intervalMs: 1,
      run: async () => {
        runs++;
        await sleep(20);
        finished = true;
      },
      onError: (error) => assert.fail(String(error)),
    });
    job.start();
    await eventually(async () => (runs >= 1 ? true : undefined), { what: 'a run' });
    await job.stop();
    assert.equal(finished, true);
    const after = runs;
    await sleep(20);
    assert.equal(runs, after);
  });

  it('given a job whose runs found nothing until it waits an hour, when it is hurried, then it runs at its fastest again', async () => {
    let runs = 0;
    const job = periodicJob({
      intervalMs: 1,
      slowestIntervalMs: 3_600_000,
      run: async () => {
        runs++;
        return false;
      },
      onError: (error) => assert.fail(String(error)),
    });
    job.start();
    try {
      // Waits of 1, 2, 4 … ms: after 12 runs (4 s) the next wait is 4 s, then 8 s, 16 s …
      await eventually(async () => (runs >= 12 ? true : undefined), {
        timeoutMs: 30_000,
        what: 'the job backed off to waits of seconds',
      });

      job.hurry();

      // Backed off, five more runs would take over a minute; hurried, a few milliseconds.
      const hurriedAt = runs;
      await eventually(async () => (runs >= hurriedAt + 5 ? true : undefined), {
        what: 'runs at the fastest wait again',
      });
    } finally {
      await job.stop();
    }
  });
});
