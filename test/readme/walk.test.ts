/**
 * The README's five-minute walk, run as written: its `sh` blocks between "Five minutes with
 * curl" and "Where to go next", in order, as one bash script against the service started as
 * `npm start` starts it (server/main.ts, a fresh SQLite file), from the repository folder.
 * Only the two ports change: the service's `127.0.0.1:4010` and the receiver's `8000` become
 * free ports. `set -m` gives the script job control, as an interactive shell has; the walk
 * waits for its receiver (`--until patient.updated`) rather than sleeping, so a slow machine
 * only makes it slower. `node` is the machine's own where
 * it has one (Node 20 here), as for a newcomer; npm scripts run on the project's Node 24.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tooling/node/ports.js';
import { newcomerPath, walkBlocks } from '../support/readme.js';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'pc-readme-walk-'));
const DATABASE_URL = `sqlite:${join(dir, 'walk.db')}`;

function collect(child: ChildProcess): () => string {
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return () => out;
}

describe('the README first screen', () => {
  it('holds, in its first 40 lines, the two commands and a write', () => {
    const first = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').slice(0, 40).join('\n');
    expect(first).toContain('npm ci && npm start');
    expect(first).toMatch(/^npm test\b/m);
    expect(first).toMatch(/curl -s \$API\/v1\/patients [^\n]*\\\n[^\n]*\n\s*-d '\{"name"/);
  });
});

describe('the README walk', () => {
  let server: ChildProcess;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    server = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = collect(server);
    for (let i = 0; i < 600 && !out().includes('  Docs:'); i++) {
      if (server.exitCode !== null) throw new Error(`server exited:\n${out()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!out().includes('  Docs:')) throw new Error(`server did not start:\n${out()}`);
  }, 90_000);

  afterAll(() => {
    server?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a patient, an appointment and a claim, receives a verified webhook, pages', {
    timeout: 180_000,
  }, async () => {
    const blocks = walkBlocks();
    expect(blocks.length).toBe(6);
    const receiverPort = await freePort();
    const script = blocks.join('\n');
    expect(script).toContain('http://127.0.0.1:4010');
    expect(script.match(/\b8000\b/g)).toHaveLength(3);
    const run = script
      .replaceAll('127.0.0.1:4010', `127.0.0.1:${port}`)
      .replace(/\b8000\b/g, String(receiverPort));

    const bash = spawn('bash', ['-c', `set -euo pipefail\nset -m\n${run}`], {
      cwd: ROOT,
      env: {
        ...process.env,
        PATH: newcomerPath(),
        DATABASE_URL,
        FORCE_COLOR: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const out = collect(bash);
    const code = await new Promise<number | null>((resolve) => bash.on('exit', resolve));
    try {
      // The receiver exited once it verified patient.updated: nothing listens on its port.
      await expect(
        fetch(`http://127.0.0.1:${receiverPort}/`, { method: 'POST' }),
      ).rejects.toThrow();
    } finally {
      try {
        process.kill(-(bash.pid ?? 0), 'SIGKILL');
      } catch {
        // the group is gone already
      }
    }
    const text = out();
    expect(code, text).toBe(0);
    const lines = text.split('\n');
    expect(lines, text).toContainEqual(expect.stringMatching(/^pat_[0-9A-Z]{26}$/));
    expect(lines, text).toContainEqual(
      expect.stringMatching(/^appt_[0-9A-Z]{26} pending 2026-12-14T08:00:00Z$/),
    );
    expect(lines, text).toContainEqual(expect.stringMatching(/^clm_[0-9A-Z]{26} submitted 12500$/));
    expect(lines, text).toContain(`receiving webhooks on http://127.0.0.1:${receiverPort}/`);
    expect(lines, text).toContainEqual(
      expect.stringMatching(/^verified patient\.updated evt_[0-9A-Z]{26}$/),
    );
    expect(text).not.toContain('refused');
    expect(lines, text).toContain('has_more: true');
    // Two pages of two events each, none repeated.
    const events = lines.filter((line) => /^evt_[0-9A-Z]{26} [a-z_.]+$/.test(line));
    expect(events.length, text).toBe(4);
    expect(new Set(events.map((line) => line.split(' ')[0])).size).toBe(4);
  });
});
