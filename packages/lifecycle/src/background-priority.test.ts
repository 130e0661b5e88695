import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import os from 'node:os';
import { test } from 'node:test';
import { createLogger } from '@vop/observability';
import { lowerProcessPriority } from './background-priority.js';

const logger = createLogger({ service: 'test', level: 'silent' });

function idleChild() {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
  if (child.pid === undefined) throw new Error('no child process');
  return { pid: child.pid, stop: () => child.kill('SIGKILL') };
}

test('given a process at its parent nice, when lowered by 5, then it runs 5 lower', () => {
  const child = idleChild();
  const lower = Math.min(19, os.getPriority() + 5);
  try {
    assert.equal(os.getPriority(child.pid), os.getPriority());
    assert.equal(lowerProcessPriority(lower, logger, child.pid), lower);
    assert.equal(os.getPriority(child.pid), lower);
  } finally {
    child.stop();
  }
});

test('given a process at nice 19, when "lowered" to 5, then it stays at 19 (never raised)', () => {
  const child = idleChild();
  try {
    os.setPriority(child.pid, 19);
    assert.equal(lowerProcessPriority(5, logger, child.pid), 19);
  } finally {
    child.stop();
  }
});

test('given nice 0 (off), then the priority is left as it is', () => {
  const child = idleChild();
  try {
    assert.equal(lowerProcessPriority(0, logger, child.pid), os.getPriority());
  } finally {
    child.stop();
  }
});
