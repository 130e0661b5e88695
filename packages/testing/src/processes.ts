import { type ChildProcess, spawn } from 'node:child_process';

export interface ServiceProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything the process printed, for failure messages. */
  output(): string;
  /** SIGTERM, then SIGKILL after graceMs; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once: a crash. */
  kill(): Promise<void>;
}

/** Runs a built service entry point (`node <script>`) as its own process with the given environment. */
export function startServiceProcess(
  name: string,
  script: string,
  env: Record<string, string>,
  args: string[] = [],
  /** Options for node itself, e.g. `--cpu-prof` when profiling a benchmark's services. */
  nodeArgs: string[] = [],
): ServiceProcess {
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    child,
    output: () => output,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
