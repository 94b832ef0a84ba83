/**
 * The service under test, as `npm start` runs it: `server/main.ts` in a child process on
 * 127.0.0.1 and a free port, on a fresh SQLite file, with the webhook worker off (no outbound
 * calls) and rate limits high enough that the fuzzer never meets a 429. Its keys are made in
 * the database before it starts: a test secret key and a test publishable key (createToken
 * takes only that kind).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../server/db/open.js';
import { createKey } from '../../server/keys/index.js';

/** A running service. */
export interface Service {
  baseUrl: string;
  port: number;
  secret: string;
  publishable: string;
  /** Everything the process printed so far. */
  output(): string;
  /** Whether the process has exited (a crash, if before `stop`). */
  exited(): boolean;
  stop(): Promise<void>;
}

const HIGH_RATE = '1000000';

/** A port the OS just had free on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until anything answers, or throws after `timeoutMs`. */
export async function waitForHttp(
  url: string,
  timeoutMs: number,
  alive: () => boolean,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`process behind ${url} exited during start-up`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`nothing answered at ${url} within ${timeoutMs} ms`);
}

/** Stops a child with SIGTERM (SIGKILL after `graceMs`) and waits for it. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await done;
  clearTimeout(timer);
}

/** Starts the service on a fresh database; `root` is the repository. */
export async function startService(root: string): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), 'patient-care-fuzz-'));
  const databaseUrl = `sqlite:${join(dir, 'fuzz.db')}`;
  const db = await openDb(databaseUrl);
  const secret = (await createKey(db, { kind: 'secret', livemode: false })).secret;
  const publishable = (await createKey(db, { kind: 'publishable', livemode: false })).secret;
  await db.close();

  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_TEST: HIGH_RATE,
      RATE_LIMIT_LIVE: HIGH_RATE,
      RATE_LIMIT_ANONYMOUS: HIGH_RATE,
      WORKER: 'off',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${baseUrl}/v1/patients`, 30_000, () => !exited());
  } catch (error) {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return {
    baseUrl,
    port,
    secret,
    publishable,
    output: () => output,
    exited,
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
