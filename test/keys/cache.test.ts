import { describe, expect, it } from 'vitest';
import { connect } from '../../server/db/open.js';
import type { Db, SqlParams } from '../../server/db/types.js';
import { ApiError } from '../../server/errors.js';
import { identifyKey } from '../../server/http/auth.js';
import {
  cachedKeyCount,
  forgetCachedKeys,
  KEY_CACHE_MAX_ENTRIES,
  KEY_CACHE_TTL_MS,
} from '../../server/keys/cache.js';
import {
  createKey,
  findKeyBySecret,
  generateSecret,
  hashSecret,
  keyState,
  revokeKey,
} from '../../server/keys/index.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

/** `db` behind a new `Db` object that counts its `get` calls (the key lookup's only read). */
function counted(db: Db): { db: Db; gets: () => number } {
  let gets = 0;
  const wrapped: Db = {
    dialect: db.dialect,
    get: <T>(sql: string, params?: SqlParams) => {
      gets++;
      return db.get<T>(sql, params);
    },
    all: (sql, params) => db.all(sql, params),
    run: (sql, params) => db.run(sql, params),
    transaction: (fn, options) => db.transaction(fn, options),
    close: async () => {},
  };
  return { db: wrapped, gets: () => gets };
}

/** A stand-in database where every well-formed test secret key exists; `get` can be held. */
function everyKeyDb(): { db: Db; gets: () => number; hold: () => () => void } {
  let gets = 0;
  let gate: Promise<void> | undefined;
  const db = {
    dialect: 'sqlite',
    get: async (_sql: string, params?: SqlParams) => {
      gets++;
      if (gate) await gate;
      const hash = String(params?.[0]);
      return {
        id: `key_${hash.slice(0, 26)}`,
        secret_hash: hash,
        kind: 'secret',
        livemode: 0,
        scopes: '[]',
        allowed_ips: '[]',
        allowed_origins: '[]',
        patient_id: null,
        rate_limit: null,
        hint: 'sk_test_…',
        description: null,
        created: 0,
        expires_at: null,
        revoked_at: null,
      };
    },
    all: async () => [],
    run: async () => ({ changes: 0 }),
    transaction: async () => {
      throw new Error('not used');
    },
    close: async () => {},
  } as unknown as Db;
  const hold = () => {
    let release!: () => void;
    gate = new Promise((resolve) => {
      release = resolve;
    });
    return () => {
      gate = undefined;
      release();
    };
  };
  return { db, gets: () => gets, hold };
}

const T = 5_000_000; // the cache's clock in these tests (any monotonic reading)

describe('key record cache (no database)', () => {
  it('holds at most KEY_CACHE_MAX_ENTRIES per database, dropping the oldest read', async () => {
    const { db, gets } = everyKeyDb();
    const secrets = Array.from({ length: KEY_CACHE_MAX_ENTRIES + 1 }, () =>
      generateSecret('secret', false),
    );
    for (const secret of secrets) expect(await findKeyBySecret(db, secret, T)).toBeDefined();
    expect(cachedKeyCount(db)).toBe(KEY_CACHE_MAX_ENTRIES);
    expect(gets()).toBe(KEY_CACHE_MAX_ENTRIES + 1);
    await findKeyBySecret(db, secrets.at(-1)!, T + 1); // newest: still cached
    expect(gets()).toBe(KEY_CACHE_MAX_ENTRIES + 1);
    await findKeyBySecret(db, secrets[1]!, T + 1); // second oldest: still cached
    expect(gets()).toBe(KEY_CACHE_MAX_ENTRIES + 1);
    await findKeyBySecret(db, secrets[0]!, T + 1); // the oldest was dropped: read again
    expect(gets()).toBe(KEY_CACHE_MAX_ENTRIES + 2);
    expect(cachedKeyCount(db)).toBe(KEY_CACHE_MAX_ENTRIES);
  });

  it('keeps nothing from a read that a key write overlapped', async () => {
    const { db, gets, hold } = everyKeyDb();
    const secret = generateSecret('secret', false);
    const release = hold();
    const pending = findKeyBySecret(db, secret, T);
    forgetCachedKeys(); // e.g. a revocation committing while the read is in flight
    release();
    expect(await pending).toBeDefined();
    expect(cachedKeyCount(db)).toBe(0);
    await findKeyBySecret(db, secret, T + 1);
    expect(gets()).toBe(2);
  });

  it('keys entries by hash, never the secret, and shares frozen records', async () => {
    const { db } = everyKeyDb();
    const secret = 'sk_test_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg';
    const key = await findKeyBySecret(db, secret, T);
    // everyKeyDb names the row after what it was queried with: the secret's SHA-256 in hex
    // (`printf %s "$secret" | sha256sum` starts cee51feb74f048eaf9d9bb9485…), not the secret.
    expect(key?.id).toBe('key_cee51feb74f048eaf9d9bb9485');
    expect(Object.isFrozen(key)).toBe(true);
    expect(Object.isFrozen(key?.scopes)).toBe(true);
    expect(await findKeyBySecret(db, secret, T + 1)).toBe(key);
    // Not a key's shape: no read and nothing kept.
    expect(await findKeyBySecret(db, 'garbage', T)).toBeUndefined();
    expect(cachedKeyCount(db)).toBe(1);
  });
});

await describeEachDatabase('key record cache', (dialect) => {
  const ctx = useTestDb(dialect);

  it('answers a repeated lookup without a database read until the TTL has passed', async () => {
    const { key, secret } = await createKey(ctx.db, { kind: 'secret', livemode: false });
    const { db, gets } = counted(ctx.db);
    expect(await findKeyBySecret(db, secret, T)).toEqual(key);
    expect(await findKeyBySecret(db, secret, T + KEY_CACHE_TTL_MS - 1)).toEqual(key);
    expect(gets()).toBe(1);
    expect(await findKeyBySecret(db, secret, T + KEY_CACHE_TTL_MS)).toEqual(key);
    expect(gets()).toBe(2);
  });

  it('sees a revocation made through revokeKey at once', async () => {
    const { key, secret } = await createKey(ctx.db, { kind: 'secret', livemode: false });
    const { db, gets } = counted(ctx.db);
    expect(keyState((await findKeyBySecret(db, secret, T))!)).toBe('active');
    expect(await revokeKey(ctx.db, key.id)).toBe(true);
    expect(keyState((await findKeyBySecret(db, secret, T + 1))!)).toBe('revoked');
    expect(gets()).toBe(2);
  });

  it('sees a change made by another connection once the TTL has passed', async () => {
    const { key, secret } = await createKey(ctx.db, { kind: 'secret', livemode: false });
    const other = connect(ctx.url); // as the keys CLI or a second server would
    try {
      expect((await findKeyBySecret(ctx.db, secret, T))?.revokedAt).toBeNull();
      await other.run('UPDATE api_keys SET revoked_at = $1 WHERE id = $2', [1, key.id]);
      // Within the TTL the record read before the change is still used...
      expect((await findKeyBySecret(ctx.db, secret, T + KEY_CACHE_TTL_MS - 1))?.revokedAt).toBe(
        null,
      );
      // ...and not a moment longer.
      expect((await findKeyBySecret(ctx.db, secret, T + KEY_CACHE_TTL_MS))?.revokedAt).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('finds a key created by another connection at once (misses are not kept)', async () => {
    const other = connect(ctx.url);
    try {
      const secret = generateSecret('restricted', false);
      expect(await findKeyBySecret(ctx.db, secret, T)).toBeUndefined();
      await other.run(
        `INSERT INTO api_keys (id, secret_hash, kind, livemode, scopes, allowed_ips,
          allowed_origins, hint, created) VALUES ($1, $2, 'restricted', 0, $3, '[]', '[]', $4, 0)`,
        ['key_fromtheclixxxxxxxxxxxxxxx', hashSecret(secret), '["patients:read"]', 'rk_test_…'],
      );
      expect((await findKeyBySecret(ctx.db, secret, T + 1))?.id).toBe(
        'key_fromtheclixxxxxxxxxxxxxxx',
      );
    } finally {
      await other.close();
    }
  });

  it('never answers one Db object from another one’s entries', async () => {
    const { key, secret } = await createKey(ctx.db, { kind: 'secret', livemode: false });
    const a = counted(ctx.db);
    const b = counted(ctx.db);
    expect(await findKeyBySecret(a.db, secret, T)).toEqual(key);
    expect(await findKeyBySecret(b.db, secret, T + 1)).toEqual(key);
    expect(a.gets()).toBe(1);
    expect(b.gets()).toBe(1);
    expect(cachedKeyCount(a.db)).toBe(1);
    expect(cachedKeyCount(b.db)).toBe(1);
  });

  it('still refuses a key the moment it expires, though its record is cached', async () => {
    const now = Date.now();
    const { secret } = await createKey(ctx.db, {
      kind: 'secret',
      livemode: false,
      expiresInSeconds: 60,
      nowMs: now,
    });
    const { db, gets } = counted(ctx.db);
    // The cache's clock is held still, so only the key's own expiry can change the answer.
    const store = { findKeyBySecret: (d: Db, s: string) => findKeyBySecret(d, s, T) };
    const auth = `Bearer ${secret}`;
    expect((await identifyKey(db, store, auth, now)).kind).toBe('secret');
    const expired = await identifyKey(db, store, auth, now + 60_000).catch((err: unknown) => err);
    expect(expired).toBeInstanceOf(ApiError);
    expect((expired as ApiError).code).toBe('api_key_expired');
    expect(gets()).toBe(1); // the second call used the cached record
  });
});
