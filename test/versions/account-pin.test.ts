/**
 * The account's pinned version on both databases: the first key pins the latest; a request
 * without the header is served in the pin; the header overrides it; `npm run keys -- version`
 * shows and moves it; an account that had keys before migration 0005 is pinned to 2026-11-01.
 */
import { expect, it } from 'vitest';
import { migrate } from '../../server/db/migrate.js';
import { migrations } from '../../server/db/migrations/index.js';
import { accountApiVersion } from '../../server/keys/account.js';
import { parseKeysCommand, runKeysCommand } from '../../server/keys/cli.js';
import { KeyOptionsError } from '../../server/keys/store.js';
import { versions } from '../../server/versioning/index.js';
import { buildTestApp } from '../support/app.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';
import { makeKey } from '../support/keys.js';

await describeEachDatabase('account version pin', (dialect) => {
  const ctx = useTestDb(dialect);

  it('the first key pins the latest; later keys leave the pin alone', async () => {
    expect(await accountApiVersion(ctx.db)).toBeNull();
    await makeKey(ctx.db);
    expect(await accountApiVersion(ctx.db)).toBe(versions.latest);
    await run(['version', '2026-11-01']);
    await makeKey(ctx.db);
    expect(await accountApiVersion(ctx.db)).toBe('2026-11-01');
  });

  it('without a header a request is served in the pin; the header overrides it', async () => {
    const t = await buildTestApp({ db: ctx.db });
    try {
      const key = await makeKey(ctx.db);
      const bare = () =>
        t.app.inject({
          method: 'GET',
          url: '/v1/appointments',
          headers: { authorization: `Bearer ${key.secret}` },
        });
      expect((await bare()).headers['patientcare-version']).toBe(versions.latest);
      const lines = await run(['version', '2026-11-01']);
      expect(lines.join('\n')).toContain('API version: 2026-11-01 (was 2026-12-01)');
      expect((await bare()).headers['patientcare-version']).toBe('2026-11-01');
      const asked = await t.app.inject({
        method: 'GET',
        url: '/v1/appointments',
        headers: { authorization: `Bearer ${key.secret}`, 'patientcare-version': '2026-12-01' },
      });
      expect(asked.headers['patientcare-version']).toBe('2026-12-01');
      expect((await run(['version'])).join('\n')).toContain('API version: 2026-11-01');
    } finally {
      await t.close();
    }
  });

  it('refuses an unknown date, listing the supported ones', () => {
    expect(() => parseKeysCommand(['version', '2030-01-01'])).toThrow(KeyOptionsError);
    expect(() => parseKeysCommand(['version', '2030-01-01'])).toThrow(/2026-12-01, 2026-11-01/);
  });

  async function run(argv: string[]): Promise<string[]> {
    const out: string[] = [];
    const code = await runKeysCommand(ctx.db, parseKeysCommand(argv), {
      out: (line) => out.push(line),
      err: (line) => out.push(line),
    });
    expect(code).toBe(0);
    return out;
  }
});

await describeEachDatabase('migration 0005', (dialect) => {
  const ctx = useTestDb(dialect, { migrate: false });

  it('pins an account that already had keys to 2026-11-01, the only version it knew', async () => {
    await migrate(ctx.db, migrations.slice(0, 4));
    await ctx.db.run(
      `INSERT INTO api_keys (id, secret_hash, kind, livemode, scopes, allowed_ips,
        allowed_origins, hint, created) VALUES ('key_1', 'h', 'secret', 0, '[]', '[]', '[]', 'x', 7)`,
    );
    expect(await migrate(ctx.db, migrations.slice(0, 5))).toEqual([5]);
    expect(await accountApiVersion(ctx.db)).toBe('2026-11-01');
  });

  it('leaves an account without keys unpinned', async () => {
    expect(await migrate(ctx.db, migrations.slice(0, 5))).toEqual([1, 2, 3, 4, 5]);
    expect(await accountApiVersion(ctx.db)).toBeNull();
  });
});
