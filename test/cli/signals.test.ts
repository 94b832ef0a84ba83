/**
 * Stopping the service as a process manager does: SIGTERM (or SIGINT) to the pid it started,
 * which for `npm start` and `npm run dev` is npm's own. npm passes the signal to its script's
 * shell; the scripts `exec` their Node process, so the signal reaches the server (before issue
 * 41 the shell died and the server kept the port). Within 10 s nothing listens on the port
 * and no process of the group npm leads is left: not the server, not a cluster worker
 * (WORKERS=2), not the dev loop's service.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tooling/node/ports.js';
import { openTestDb, postgresAvailable, type TestDb } from '../support/databases.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'pc-signals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pg = await postgresAvailable();

/** Whether any process of the group `leader` leads is left. */
function groupAlive(leader: number): boolean {
  try {
    process.kill(-leader, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

interface Started {
  child: ChildProcess;
  port: number;
  output: () => string;
}

/** Starts `command` in a process group of its own and waits until /healthz answers. */
async function start(command: string[], env: Record<string, string> = {}): Promise<Started> {
  const port = await freePort();
  const [file = '', ...args] = command;
  const child = spawn(file, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DATABASE_URL: `sqlite:${join(dir, `${port}.db`)}`,
      NO_COLOR: '1',
      ...env,
    },
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  // npm start may build first and npm run dev lints and generates first: a minute or more
  // on a busy machine.
  const deadline = Date.now() + 170_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command.join(' ')} exited:\n${text}`);
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (up) return { child, port, output: () => text };
    if (Date.now() > deadline) throw new Error(`${command.join(' ')} never answered:\n${text}`);
    await new Promise((wait) => setTimeout(wait, 200));
  }
}

/**
 * Sends `signal` to the started pid only (as systemd's KillMode=mixed or a container runtime
 * does first) and polls for 10 s until the port is free and the group is empty. Whatever is
 * left afterwards is killed, so a failing case leaks nothing.
 */
async function stopWith(
  started: Started,
  signal: NodeJS.Signals,
): Promise<{ portFree: boolean; groupGone: boolean }> {
  const leader = started.child.pid ?? 0;
  process.kill(leader, signal);
  const deadline = Date.now() + 10_000;
  let portFree = false;
  let groupGone = false;
  while (Date.now() < deadline) {
    portFree = !(await listening(started.port));
    groupGone = !groupAlive(leader);
    if (portFree && groupGone) break;
    await new Promise((wait) => setTimeout(wait, 100));
  }
  if (groupAlive(leader)) process.kill(-leader, 'SIGKILL');
  return { portFree, groupGone };
}

describe('a signal to the pid a process manager started stops everything', () => {
  it('npm start, SIGTERM to npm', async () => {
    const started = await start(['npm', 'start']);
    expect(await stopWith(started, 'SIGTERM'), started.output()).toEqual({
      portFree: true,
      groupGone: true,
    });
  });

  it('npm start, SIGINT to npm', async () => {
    const started = await start(['npm', 'start']);
    expect(await stopWith(started, 'SIGINT'), started.output()).toEqual({
      portFree: true,
      groupGone: true,
    });
  });

  it('node build/server/main.js, SIGINT', async () => {
    // Built by the npm start cases above.
    const started = await start([process.execPath, 'build/server/main.js']);
    expect(await stopWith(started, 'SIGINT'), started.output()).toEqual({
      portFree: true,
      groupGone: true,
    });
  });

  it.skipIf(!pg)('WORKERS=2 npm start on PostgreSQL: the primary stops its workers', async () => {
    const db: TestDb = await openTestDb('postgres');
    try {
      const started = await start(['npm', 'start'], { WORKERS: '2', DATABASE_URL: db.url });
      expect(started.output()).toContain('2 service processes');
      expect(await stopWith(started, 'SIGTERM'), started.output()).toEqual({
        portFree: true,
        groupGone: true,
      });
    } finally {
      await db.dispose();
    }
  });

  it('npm run dev, SIGTERM to npm: the loop and its service stop', async () => {
    const copy = join(dir, 'dev');
    cpSync(join(ROOT, 'spec/openapi.yaml'), join(copy, 'spec/openapi.yaml'));
    cpSync(join(ROOT, 'spec/guides'), join(copy, 'spec/guides'), { recursive: true });
    const started = await start([
      'npm',
      'run',
      'dev',
      '--',
      '--spec',
      join(copy, 'spec/openapi.yaml'),
      '--out',
      join(copy, 'generated'),
    ]);
    expect(await stopWith(started, 'SIGTERM'), started.output()).toEqual({
      portFree: true,
      groupGone: true,
    });
  });
});
