/**
 * The service as an operator deploys it: `npm run build`, then only the built output with
 * package.json and package-lock.json in an empty folder, `npm ci --omit=dev` there, and
 * `MALLOC_ARENA_MAX=2 node --max-semi-space-size=16 build/server/main.js`, as README says.
 * Every route answers, the docs included: nothing the running service imports may be a
 * devDependency, and nothing a browser page loads may need one. The operator commands run
 * there too, as `node build/cli.js …` and `npx patient-care …`, beside the running service.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../tooling/node/ports.js';

const run = promisify(execFile);
const ROOT = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'pc-prod-'));
let server: ChildProcess | undefined;
let output = '';
let base = '';

beforeAll(async () => {
  await run(
    process.execPath,
    ['--import', 'tsx', 'scripts/build.ts', '--out', join(dir, 'build')],
    {
      cwd: ROOT,
    },
  );
  for (const file of ['package.json', 'package-lock.json']) {
    copyFileSync(join(ROOT, file), join(dir, file));
  }
  await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, ['--max-semi-space-size=16', 'build/server/main.js'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MALLOC_ARENA_MAX: '2',
      HOST: '127.0.0.1',
      PORT: String(port),
      // No DATABASE_URL: the default, ./data/patient-care.db, whose folder the first start
      // makes (the one folder the service creates).
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  server.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  for (let i = 0; i < 300; i++) {
    if (server.exitCode !== null) throw new Error(`the service exited:\n${output}`);
    const up = await fetch(`${base}/healthz`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (up && output.includes('Try it:')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the service did not come up:\n${output}`);
}, 600_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGKILL');
    await new Promise((r) => server?.once('exit', r));
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('a production install (npm ci --omit=dev beside build/)', () => {
  it('has no build or docs tooling in node_modules', () => {
    for (const dev of [
      '@redocly/cli',
      '@redocly/openapi-core',
      'redoc',
      'rapidoc',
      'esbuild',
      'tsx',
    ]) {
      expect(existsSync(join(dir, 'node_modules', dev)), dev).toBe(false);
    }
    expect(existsSync(join(dir, 'node_modules', 'ajv'))).toBe(true);
  });

  it('starts, prints the first key, and is ready', async () => {
    expect(output).toContain(`Patient-Care API listening on ${base}`);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok' });
    expect(existsSync(join(dir, 'data', 'patient-care.db'))).toBe(true);
  });

  it('serves the API with the printed key', async () => {
    const key = /sk_test_[0-9A-Za-z]+/.exec(output)?.[0];
    expect(key).toBeDefined();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/v1/patients`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: { family: 'Production' } }),
    });
    expect(created.status).toBe(200);
    const patient = (await created.json()) as { id: string };
    const read = await fetch(`${base}/v1/patients/${patient.id}`, { headers });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id: patient.id });
  });

  it('serves /docs, the explorer, every asset they load and the spec', async () => {
    const root = await fetch(`${base}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/docs');
    const assets = new Set<string>();
    for (const page of ['/docs', '/docs/explorer']) {
      const res = await fetch(`${base}${page}`);
      expect(res.status, page).toBe(200);
      for (const m of (await res.text()).matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)) {
        assets.add(m[1]!);
      }
    }
    expect(assets.size).toBeGreaterThanOrEqual(4);
    for (const asset of assets) {
      const res = await fetch(`${base}${asset}`);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
    }
    const spec = await fetch(`${base}/openapi.json`);
    expect(spec.status).toBe(200);
    const doc = (await spec.json()) as { paths: Record<string, unknown>; servers: unknown };
    expect(Object.keys(doc.paths)).toContain('/v1/patients');
    expect(doc.servers).toEqual([
      { url: '/', description: 'This service (relative to where this document was loaded)' },
    ]);
    const yaml = await fetch(`${base}/openapi.yaml`);
    expect(yaml.status).toBe(200);
    expect(await yaml.text()).toContain('openapi: 3.0');
  });

  describe('the operator command, node build/cli.js', () => {
    /** Runs the shipped CLI in the install; never throws: the exit code is part of the answer. */
    const cli = async (args: string[], command = [process.execPath, 'build/cli.js']) => {
      const [file = '', ...first] = command;
      try {
        const { stdout, stderr } = await run(file, [...first, ...args], {
          cwd: dir,
          // The Node running this test first on PATH: `npx` and the bin's `env node` use it.
          env: {
            PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
            HOME: process.env.HOME,
          },
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const e = error as { code?: number; stdout?: string; stderr?: string };
        return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
      }
    };

    it('--help lists every command', async () => {
      const res = await cli(['--help']);
      expect(res.code, res.stderr).toBe(0);
      for (const command of ['keys', 'audit', 'doctor', 'migrate', 'worker', 'backup', 'restore'])
        expect(res.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    });

    it('keys create prints a key the running service accepts', async () => {
      const res = await cli(['keys', 'create', '--description', 'from build/cli.js']);
      expect(res.code, res.stderr).toBe(0);
      const key = /secret: (sk_test_[0-9A-Za-z]+)/.exec(res.stdout)?.[1];
      expect(key, res.stdout).toBeDefined();
      const listed = await fetch(`${base}/v1/patients`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(listed.status).toBe(200);
      const list = await cli(['keys', 'list']);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toContain(key?.slice(-4));
    });

    it('doctor and migrate exit 0 on the service database', async () => {
      const doctor = await cli(['doctor']);
      expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
      expect(doctor.stdout).toContain('doctor: nothing to repair');
      const migrate = await cli(['migrate', '--check']);
      expect(migrate.code, migrate.stdout + migrate.stderr).toBe(0);
      expect(migrate.stdout).toContain('schema up to date');
    });

    it('backs up the live database and restores the file into a new one', async () => {
      const backup = await cli(['backup', '--to', 'backup.db']);
      expect(backup.code, backup.stderr).toBe(0);
      const restore = await cli(['restore', '--from', 'backup.db', '--to', 'sqlite:restored.db']);
      expect(restore.code, restore.stdout + restore.stderr).toBe(0);
      expect(restore.stdout).toMatch(/audit trail append-only, [1-9]\d* entries/);
      const again = await cli(['restore', '--from', 'backup.db', '--to', 'sqlite:restored.db']);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/already holds a database .*--force/);
    });

    it('a bad argument or command is one line, non-zero exit, no stack trace', async () => {
      for (const args of [['keys', '--no-such-flag'], ['doctor', '--limit', 'x'], ['nosuch'], []]) {
        const res = await cli(args);
        expect(res.code, args.join(' ')).toBe(2);
        expect(res.stderr.trim().split('\n'), res.stderr).toHaveLength(1);
        expect(res.stderr).not.toMatch(/\n\s+at /);
      }
    });

    it('is the package bin: npx patient-care runs it', async () => {
      const res = await cli(['patient-care', '--help'], ['npx', '--no-install']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('Usage: patient-care <command>');
    });
  });

  it('shuts down cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((r) => server?.once('exit', (code) => r(code)));
    server?.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
