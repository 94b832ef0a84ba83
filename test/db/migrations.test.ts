import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { migrate } from '../../server/db/migrate.js';
import { migrations } from '../../server/db/migrations/index.js';
import { openDb } from '../../server/db/open.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./fixtures/migrate-child.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

async function runChild(url: string): Promise<string> {
  const { stdout } = await run(tsx, [child, url]);
  return stdout.trim().split('\n').at(-1)!;
}

const latest = migrations.map((m) => m.version);

await describeEachDatabase('migrations', (dialect) => {
  const ctx = useTestDb(dialect, { migrate: false });

  it('applies every migration once and is a no-op the second time', async () => {
    expect(await migrate(ctx.db)).toEqual(latest);
    expect(await migrate(ctx.db)).toEqual([]);
    const rows = await ctx.db.all<{ version: number }>('SELECT version FROM schema_migrations');
    expect(rows.map((r) => r.version)).toEqual(latest);
  });

  it('is safe when several processes migrate one fresh database at once', async () => {
    const children = Array.from({ length: 3 }, () => runChild(ctx.url));
    const applied = (await Promise.all(children)).map((out) => JSON.parse(out) as number[]);
    expect(applied.filter((versions) => versions.length > 0)).toEqual([latest]);
    const rows = await ctx.db.all('SELECT version FROM schema_migrations');
    expect(rows).toHaveLength(latest.length);
  });

  it('openDb migrates on open', async () => {
    const db = await openDb(ctx.url);
    try {
      expect(await db.get('SELECT COUNT(*) AS n FROM patients')).toEqual({ n: 0 });
    } finally {
      await db.close();
    }
  });
});
