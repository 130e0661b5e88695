import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DevPki } from '@vop/pki';
import type { SchemeBank } from './banks.js';

/** One bank of the scheme as it is to be started: where, with which files and settings. */
export interface BankDeployment {
  bank: SchemeBank;
  port: number;
  /** https://127.0.0.1:<port> */
  url: string;
  dataDir: string;
  pki: DevPki;
  /** The deployment's VOP_* settings (bank-settings.ts). */
  env: Record<string, string>;
}

/** A started deployment: it is ready once its /readyz answers 200. */
export interface LaunchedBank {
  /** Settles when the deployment ends, by itself or stopped, saying how. */
  ended: Promise<string>;
  stop(): Promise<void>;
  /** Where the deployment's output goes, when it is a file. */
  logPath?: string;
  /** The process, when the deployment is one. */
  pid?: number;
}

/** Starts one bank's deployment: by default the embedded service (launchEmbeddedBank). */
export type BankLauncher = (deployment: BankDeployment) => Promise<LaunchedBank>;

const EMBEDDED_MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'main.js');
/** How long a bank may take to stop cleanly before it is killed. */
const STOP_GRACE_MS = 15_000;

/** The embedded default as a process of its own, its output appended to `<data>/bank.log`. */
export const launchEmbeddedBank: BankLauncher = async (deployment) => {
  const logPath = path.join(deployment.dataDir, 'bank.log');
  const log = await open(logPath, 'a');
  const child = spawn(process.execPath, [EMBEDDED_MAIN], {
    env: { ...process.env, ...deployment.env },
    stdio: ['ignore', log.fd, log.fd],
  });
  // The child holds its own copy of the descriptor.
  await log.close();
  const ended = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`could not start: ${error.message}`));
    child.once('exit', (code, signal) =>
      resolve(signal === null ? `exited with code ${code}` : `ended by ${signal}`),
    );
  });
  return {
    ended,
    logPath,
    ...(child.pid !== undefined && { pid: child.pid }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await ended;
      clearTimeout(timer);
    },
  };
};
