/**
 * The retention schedule as the processes run it: `npm run worker` (scripts/worker.ts) and
 * the server (server/main.ts) each delete expired idempotency records from a SQLite file on
 * their own schedule, and still exit 0 on SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/types.js';
import { completeIdempotent, IDEMPOTENCY_TTL_MS } from '../../server/repos/idempotency.js';
import { freePort } from '../../tooling/node/ports.js';
import { openTestDb, type TestDb } from '../support/databases.js';

let test: TestDb;
beforeEach(async () => {
  test = await openTestDb('sqlite');
});
afterEach(() => test.dispose());

async function seedExpired(db: Db): Promise<void> {
  for (const [key, age] of [
    ['expired', IDEMPOTENCY_TTL_MS + 60_000],
    ['live', 60_000],
  ] as const) {
    // Completed records: a server starting on SQLite frees every `running` claim at once.
    await completeIdempotent(db, {
      namespace: 'account',
      livemode: false,
      idempotencyKey: key,
      requestHash: 'hash',
      nowMs: Date.now() - age,
      status: 200,
      body: {},
    });
  }
}

async function remainingKeys(db: Db): Promise<string[]> {
  const rows = await db.all<{ k: string }>(
    'SELECT idempotency_key AS k FROM idempotency_keys ORDER BY idempotency_key',
  );
  return rows.map((row) => row.k);
}

async function untilPurged(db: Db, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 40_000;
  while ((await remainingKeys(db)).includes('expired')) {
    if (child.exitCode !== null) throw new Error(`process exited early:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`nothing purged in time:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function run(
  entry: string,
  env: Record<string, string>,
): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: {
      ...process.env,
      DATABASE_URL: test.url,
      LOG_LEVEL: 'warn',
      RETENTION_INTERVAL_MS: '100',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return { child, output: () => out };
}

async function stopped(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exit;
}

describe('retention in the processes', () => {
  it.each([
    ['npm run worker', 'scripts/worker.ts', {}],
    ['the server', 'server/main.ts', { HOST: '127.0.0.1' }],
  ] as const)(
    '%s purges expired rows and keeps live ones',
    { timeout: 90_000 },
    async (_name, entry, env) => {
      await seedExpired(test.db);
      const extra: Record<string, string> =
        entry === 'server/main.ts' ? { ...env, PORT: String(await freePort()) } : { ...env };
      const { child, output } = run(entry, extra);
      try {
        await untilPurged(test.db, child, output);
        expect(await remainingKeys(test.db)).toEqual(['live']);
      } finally {
        const code = await stopped(child);
        expect(code, output()).toBe(0);
      }
    },
  );
});
