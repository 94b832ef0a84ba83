/**
 * `server/main.ts` as a process: first start prints one test key, the service answers on
 * PORT, SIGTERM/SIGINT shut it down cleanly, and a second start on the same database prints
 * no key.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'pc-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

interface Started {
  child: ChildProcess;
  stdout: () => string;
  port: number;
}

async function start(): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${join(dir, 'service.db')}`,
      LOG_LEVEL: 'warn',
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
  // Poll until it answers (start-up time varies a lot on a busy machine).
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    try {
      await fetch(`http://127.0.0.1:${port}/v1/patients`);
      return { child, stdout: () => out, port };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start:\n${out}`);
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

describe('server/main.ts', () => {
  it('prints the first key once, serves, and shuts down on signals', {
    timeout: 90_000,
  }, async () => {
    const first = await start();
    const key = /sk_test_[0-9A-Za-z]+/.exec(first.stdout())?.[0];
    expect(key).toBeDefined();
    expect(first.stdout().match(/sk_test_/g)).toHaveLength(1);

    const res = await fetch(`http://127.0.0.1:${first.port}/v1/patients`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).not.toBe(401);
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    await res.text();

    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);

    const second = await start();
    const again = await fetch(`http://127.0.0.1:${second.port}/v1/patients`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(again.status).not.toBe(401);
    await again.text();
    expect(second.stdout()).not.toContain('sk_test_');
    second.child.kill('SIGINT');
    expect(await exited(second.child)).toBe(0);
  });
});
