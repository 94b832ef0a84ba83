/**
 * An earlier release's service as its users ran it: its own tree and dependencies
 * (`installedRelease`), `server/main.ts` under its own tsx, on a database named by URL, with
 * the delivery worker off so its webhook deliveries are still pending when today's build
 * takes over. It creates the first test key itself, as on a real first start, and prints it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

export interface OldService {
  readonly baseUrl: string;
  /** The first test secret key, printed by the release at its first start. */
  readonly secret: string;
  /** SIGTERM, then waits for the process to exit (it closes its database). */
  stop(): Promise<void>;
}

const LISTENING = /listening on (http:\/\/\S+)/;
const KEY = /keep it\): (sk_test_\S+)/;

/** Starts `releaseDir`'s service on `databaseUrl`; rejects with its stderr if it does not start. */
export async function startOldService(
  releaseDir: string,
  databaseUrl: string,
): Promise<OldService> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: releaseDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_TEST: '1000000',
      RATE_LIMIT_LIVE: '1000000',
      RATE_LIMIT_ANONYMOUS: '1000000',
      WORKER: 'off',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const deadline = Date.now() + 120_000;
  while (!(LISTENING.test(out) && KEY.test(out))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the release in ${releaseDir} did not start: ${err.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const exited = once(child, 'exit');
  return {
    baseUrl: LISTENING.exec(out)?.[1] ?? '',
    secret: KEY.exec(out)?.[1] ?? '',
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
