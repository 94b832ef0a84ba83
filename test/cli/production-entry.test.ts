/**
 * The production entry, `node build/server/main.js`, as a production install runs it: on a Node
 * older than 24.18 it prints the one line every npm script prints (scripts/check-node.mjs) and
 * exits 1 — before, better-sqlite3 13 made Node 20 exit 139 with no output — and on the Node
 * running this test it serves. The older Node is the machine's own (`node` on PATH without
 * node_modules/.bin, else /usr/bin/node); where there is none older, that case says so.
 */
import { execFile, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildService } from '../../tooling/build/build.js';
import { freePort } from '../../tooling/node/ports.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
// Inside the repository, so the bundle's external packages resolve from its node_modules.
const OUT = join(ROOT, 'build', `entry-test-${process.pid}`);
const MAIN = join(OUT, 'server', 'main.js');

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

describe('node build/server/main.js', () => {
  it('on an older Node: the one-line message naming Node 24.18, exit 1', async (context) => {
    const older = await olderNode();
    if (older === undefined) {
      console.warn('production-entry: no Node older than 24.18 on this machine; case skipped');
      context.skip();
      return;
    }
    const result = await run(older.node, [MAIN], {
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
  });

  it('on this Node: starts and serves', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: 'sqlite::memory:',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    try {
      for (let i = 0; i < 300 && !out.includes('  Docs:') && child.exitCode === null; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(out).toContain(`Patient-Care API listening on http://127.0.0.1:${port}`);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      await health.text();
    } finally {
      child.kill('SIGTERM');
    }
  });
});
