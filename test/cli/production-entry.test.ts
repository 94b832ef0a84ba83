/**
 * The production entries, `node build/server/main.js` (and the operator commands'
 * `build/cli.js`), as a production install runs them: on a Node older than 24.18 each prints
 * the one line every npm script prints (scripts/check-node.mjs) and exits 1 — before,
 * better-sqlite3 13 made Node 20 exit 139 with no output — and on the Node running this test
 * the service serves, in WORKERS=N processes on PostgreSQL as `npm start` does (before issue
 * 33's fix only `npm start` read WORKERS). The older Node is the machine's own (`node` on PATH
 * without node_modules/.bin, else /usr/bin/node); where there is none older, that case says so.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childrenOf } from '../../bench/support/proc.js';
import { buildService } from '../../tooling/build/build.js';
import { freePort } from '../../tooling/node/ports.js';
import { collectOutput } from '../support/child-output.js';
import { openTestDb, postgresAvailable } from '../support/databases.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
// Inside the repository, so the bundle's external packages resolve from its node_modules.
const OUT = join(ROOT, 'build', `entry-test-${process.pid}`);
const MAIN = join(OUT, 'server', 'main.js');
const CLI = join(OUT, 'cli.js');

const machinePath = (process.env.PATH ?? '')
  .split(':')
  .filter((entry) => !entry.includes('node_modules') && !entry.includes('patient-care'))
  .join(':');

/** The machine's own Node if it is older than 24.18: its path and version. */
async function olderNode(): Promise<{ node: string; version: string } | undefined> {
  for (const node of ['node', '/usr/bin/node']) {
    try {
      const { stdout } = await run(node, ['-p', 'process.versions.node'], {
        env: { ...process.env, PATH: machinePath },
      });
      const [major = 0, minor = 0] = stdout.trim().split('.').map(Number);
      if (major * 1000 + minor < 24_018) return { node, version: stdout.trim() };
    } catch {
      // not there; try the next
    }
  }
  return undefined;
}

beforeAll(async () => {
  await buildService(ROOT, OUT);
}, 120_000);
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

/** Runs `file` on the machine's older Node: it prints the npm scripts' one line and exits 1. */
async function refusesOlderNode(file: string, context: { skip(): void }): Promise<void> {
  const older = await olderNode();
  if (older === undefined) {
    console.warn('production-entry: no Node older than 24.18 on this machine; case skipped');
    context.skip();
    return;
  }
  const result = await run(older.node, [file], {
    env: { ...process.env, PATH: machinePath, PORT: '0', DATABASE_URL: 'sqlite::memory:' },
  }).then(
    () => ({ code: 0, stdout: '', stderr: '' }),
    (error: { code: number; signal: string | null; stdout: string; stderr: string }) => error,
  );
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  // The same message as the npm scripts' check, word for word.
  const scripts = await run(older.node, [join(ROOT, 'scripts', 'check-node.mjs')], {
    env: { ...process.env, PATH: machinePath },
  }).catch((error: { stderr: string }) => error);
  expect(lines[0]).toBe(scripts.stderr.trim());
  expect(lines[0]).toContain(`needs Node.js 24.18 or newer; this is v${older.version}`);
}

describe('node build/cli.js (the operator commands)', () => {
  it('on an older Node: the one-line message naming Node 24.18, exit 1', (context) =>
    refusesOlderNode(CLI, context));
});

describe('node build/server/main.js', () => {
  it('on an older Node: the one-line message naming Node 24.18, exit 1', (context) =>
    refusesOlderNode(MAIN, context));

  it('on this Node: starts and serves', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const service = start({ PORT: String(port), DATABASE_URL: 'sqlite::memory:' });
    try {
      await service.until((out) => out.includes('  Docs:'));
      expect(service.output()).toContain(`Patient-Care API listening on http://127.0.0.1:${port}`);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      await health.text();
    } finally {
      service.child.kill('SIGTERM');
    }
  });

  it('WORKERS=2 on PostgreSQL: two service processes on one port, stopped by one SIGTERM', {
    timeout: 90_000,
  }, async (context) => {
    if (!(await postgresAvailable())) {
      context.skip();
      return;
    }
    const database = await openTestDb('postgres');
    const port = await freePort();
    const service = start({ PORT: String(port), DATABASE_URL: database.url, WORKERS: '2' });
    try {
      await service.until((out) => out.split('Patient-Care API listening on').length === 3);
      expect(service.output()).toContain('patient-care: 2 service processes (WORKERS=2)');
      // The primary forked two processes of the same entry, each serving the port.
      const children = childrenOf(service.child.pid!);
      expect(children).toHaveLength(2);
      for (const pid of children) {
        expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain(MAIN);
      }
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      await health.text();
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
      for (const pid of children) expect(alive(pid)).toBe(false);
    } finally {
      service.child.kill('SIGKILL');
      await database.dispose();
    }
  });

  it('WORKERS=2 on SQLite: one line naming the fix, exit 2, nothing started', async () => {
    const service = start({ PORT: '0', DATABASE_URL: 'sqlite::memory:', WORKERS: '2' });
    const stopper = setTimeout(() => service.child.kill('SIGKILL'), 20_000);
    expect(await service.exited).toBe(2);
    clearTimeout(stopper);
    expect(service.output()).toBe(
      'patient-care: WORKERS=2 needs PostgreSQL (DATABASE_URL=postgres://…): a SQLite file is served by one process\n',
    );
  });
});

/** `node build/server/main.js` with `env` added, its output collected. */
function start(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', WORKERS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collectOutput(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    exited,
    output,
    /** Waits (30 s at most) until the output passes `done` or the process exits. */
    async until(done: (out: string) => boolean): Promise<void> {
      for (let i = 0; i < 300 && !done(output()) && child.exitCode === null; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
