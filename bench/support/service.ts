/**
 * The service as the benches run it (docs/design.md#benchmarks): in a process of its own on
 * 127.0.0.1 and a free port, with the test rate limit raised out of the way (a 429 is cheap,
 * so the figure would be the limiter's). By default it is the build `npm start` runs
 * (`build/server/main.js` with its V8 flags; `buildService` makes it); with `tree`, an
 * extracted commit's `server/main.ts` under tsx (tooling/releases/release-tree.ts).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDb } from '../../server/db/open.js';
import { createKey } from '../../server/keys/index.js';
import { running, stopChild, waitForHttp } from '../../tooling/node/child-process.js';
import { freePort } from '../../tooling/node/ports.js';
import { ROOT } from './report.js';

/** Rate limits this high count every request but never refuse one. */
export const UNLIMITED = '1000000';

/** A test secret key made in the database before the service starts, so it never prints it. */
export async function testKey(databaseUrl: string): Promise<string> {
  const db = await openDb(databaseUrl);
  try {
    return (await createKey(db, { kind: 'secret', livemode: false })).secret;
  } finally {
    await db.close();
  }
}

/** What `npm start` runs first: `npm run build` (the server bundle and the docs site). */
export function buildService(): void {
  const built = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run build (the service bundle) failed');
}

/** `npm start`'s command line (package.json). */
function startScript(): string {
  return String(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start);
}

/** The V8 flags `npm start` gives the service, so the bench runs what it runs. */
function startFlags(): string[] {
  return startScript().match(/--max-[a-z-]+=\d+/g) ?? [];
}

/** The environment defaults `npm start` sets (`NAME=${NAME:-value}`), e.g. `MALLOC_ARENA_MAX`. */
function startEnvironment(): Record<string, string> {
  const defaults: Record<string, string> = {};
  for (const [, name, value] of startScript().matchAll(/([A-Z_]+)=\$\{\1:-([^}]*)\}/g)) {
    defaults[name as string] = process.env[name as string] ?? (value as string);
  }
  return defaults;
}

export interface ServiceOptions {
  databaseUrl: string;
  /** A key of the database: start-up waits for an authenticated list to answer 200. */
  secret?: string;
  /** An extracted commit whose `server/main.ts` runs under tsx, instead of this build. */
  tree?: string;
  /** Processes (`WORKERS=N` through `npm start`'s script); the build only. */
  workers?: number;
  /** Flags for the service's node, e.g. `--cpu-prof`. */
  nodeArgs?: readonly string[];
  /** More environment, over the defaults (`LOG_LEVEL=info`: logs written to /dev/null). */
  env?: Readonly<Record<string, string>>;
}

export interface RunningService {
  /** `http://127.0.0.1:PORT`. */
  base: string;
  child: ChildProcess;
  /** SIGTERM (in-flight requests finish), then waits for the exit. */
  stop(): Promise<void>;
}

/** Starts the service and resolves once it answers (60 s at most; 90 s for a tree under tsx). */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const port = await freePort();
  const workers = options.workers ?? 1;
  const args = options.tree
    ? ['--import', 'tsx', 'server/main.ts']
    : [
        ...startFlags(),
        ...(options.nodeArgs ?? []),
        workers > 1 ? 'scripts/start.ts' : 'build/server/main.js',
      ];
  const child = spawn(process.execPath, args, {
    cwd: options.tree ?? ROOT,
    env: {
      ...process.env,
      ...(options.tree ? {} : startEnvironment()),
      DATABASE_URL: options.databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_TEST: UNLIMITED,
      LOG_LEVEL: 'info',
      ...(workers > 1 ? { WORKERS: String(workers) } : {}),
      ...options.env,
    },
    // Logs go to /dev/null: written and paid for, as in production, but not read here.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = `${errors}${chunk.toString()}`.slice(-4000);
    if (!options.tree) process.stderr.write(chunk);
  });
  const base = `http://127.0.0.1:${port}`;
  const headers: Record<string, string> = options.secret
    ? { authorization: `Bearer ${options.secret}` }
    : {};
  try {
    await waitForHttp(
      `${base}/v1/patients?limit=1`,
      options.tree ? 90_000 : 60_000,
      () => running(child),
      { headers, ok: options.secret !== undefined },
    );
  } catch (error) {
    await stopChild(child);
    throw new Error(`the service did not start: ${(error as Error).message}\n${errors}`);
  }
  return { base, child, stop: () => stopChild(child, 10_000) };
}
