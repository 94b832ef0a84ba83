/**
 * The real service as a child process (`node --import tsx server/main.ts`) for crash and
 * disk-fault runs: a free port, the first key it prints on a fresh database, and the two
 * ways it ends — SIGKILL (a crash) or SIGTERM (a clean stop).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../../tooling/node/ports.js';
import { collectOutput } from '../../support/child-output.js';

/** The repository root (the child runs there, so `server/main.ts` and `spec/` resolve). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A running service process. */
export interface ServiceProcess {
  child: ChildProcess;
  pid: number;
  /** `http://127.0.0.1:PORT` */
  baseUrl: string;
  /** The `sk_test_` key printed on a fresh database, or null when none was printed. */
  printedKey: string | null;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGKILL, resolved once the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM (graceful shutdown), resolved with the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  databaseUrl: string;
  /** Extra environment (LOG_LEVEL, RATE_LIMIT_TEST, …). */
  env?: Record<string, string>;
  /** A command the node process is run under, e.g. `['fiu-run', '-x']`. */
  wrapper?: readonly string[];
  /** How long to wait for the first answer. Default 60 s (start-up is slow on a busy box). */
  startTimeoutMs?: number;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * Starts the service on `databaseUrl` and resolves once it answers HTTP.
 *
 * @example
 * const service = await startService({ databaseUrl: 'sqlite:/tmp/x/db.sqlite' });
 * await fetch(`${service.baseUrl}/v1/patients`);
 * await service.kill9();
 */
export async function startService(options: StartOptions): Promise<ServiceProcess> {
  const port = await freePort();
  const command = [
    ...(options.wrapper ?? []),
    process.execPath,
    '--import',
    'tsx',
    'server/main.ts',
  ];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: options.databaseUrl,
      LOG_LEVEL: 'warn',
      // Durability runs send far more than the 25 req/s a test key gets by default.
      RATE_LIMIT_TEST: '1000000',
      RATE_LIMIT_LIVE: '1000000',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collectOutput(child);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`service exited early (${child.exitCode ?? child.signalCode}):\n${output()}`);
    }
    try {
      await fetch(`${baseUrl}/v1/patients`, { signal: AbortSignal.timeout(2000) });
      // The banner (with a fresh database's key) follows the socket's listen by a moment.
      if (!output().includes('  Docs:')) throw new Error('listening, banner not printed yet');
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`service did not answer within the start timeout:\n${output()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    child,
    pid: child.pid ?? 0,
    baseUrl,
    printedKey: /sk_test_[0-9A-Za-z]+/.exec(output())?.[0] ?? null,
    output,
    async kill9() {
      const done = exited(child);
      child.kill('SIGKILL');
      await done;
    },
    async stop() {
      const done = exited(child);
      child.kill('SIGTERM');
      return done;
    },
  };
}
