import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../support/databases.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = `${root}node_modules/.bin/tsx`;

describe('npm run keys (scripts/keys.ts via tsx)', () => {
  let test: TestDb;
  beforeAll(async () => {
    test = await openTestDb('sqlite');
  });
  afterAll(async () => test.dispose());

  const keys = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(tsx, ['scripts/keys.ts', ...args], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: test.url },
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  // Five CLI processes in a row: 24-30 s on the shared 2-core machine at load average 17-20.
  it('creates, lists (hint only) and revokes keys', { timeout: 120_000 }, async () => {
    const created = await keys(
      'create',
      '--restricted',
      '--scopes',
      'patients:read,appointments:read',
      '--allow-ip',
      '10.0.0.0/8',
      '--expires-in',
      '30d',
    );
    expect(created.code).toBe(0);
    const secret = /secret: (rk_test_\S+)/.exec(created.stdout)?.[1];
    const id = /created (key_\S+)/.exec(created.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(id).toBeDefined();

    const listed = await keys('list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(id!);
    expect(listed.stdout).toContain(`rk_test_…${secret!.slice(-4)}`);
    expect(listed.stdout).toContain('patients:read,appointments:read');
    expect(listed.stdout).not.toContain(secret!);

    expect((await keys('revoke', id!)).code).toBe(0);
    expect((await keys('list')).stdout).toMatch(/revoked\s*$/m);
    expect((await keys('revoke', id!)).code).toBe(1);
  });

  it('explains bad usage with exit code 2', { timeout: 120_000 }, async () => {
    const bad = await keys('create', '--restricted');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('needs at least one scope');
    expect((await keys('frobnicate')).code).toBe(2);
    expect((await keys('create', '--publishable', '--origin', 'https://clinic.example')).code).toBe(
      0,
    );
  });
});
