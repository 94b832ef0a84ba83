import type { Db } from '../db/types.js';

/** A single-use token as stored: `data` is what it carries (e.g. intake patient fields). */
export interface TokenRecord<T = unknown> {
  id: string;
  livemode: boolean;
  type: string;
  /** The publishable key that created it. */
  keyId: string | null;
  /** Unix seconds. */
  created: number;
  expiresAt: number;
  usedAt: number | null;
  data: T;
}

/** Why a token could not be used. */
export type TokenRefusal = 'missing' | 'used' | 'expired';

/** Stores a new token. */
export async function insertToken<T>(tx: Db, token: Omit<TokenRecord<T>, 'usedAt'>): Promise<void> {
  await tx.run(
    `INSERT INTO tokens (id, livemode, type, key_id, created, expires_at, used_at, data)
      VALUES ($1, $2, $3, $4, $5, $6, NULL, $7)`,
    [
      token.id,
      token.livemode,
      token.type,
      token.keyId,
      token.created,
      token.expiresAt,
      JSON.stringify(token.data),
    ],
  );
}

/**
 * Uses a token up: one conditional UPDATE marks it used only if it is unused and unexpired,
 * so of two concurrent requests exactly one gets the data. Call inside the transaction that
 * acts on it, so a failed write leaves the token usable.
 */
export async function consumeToken<T = unknown>(
  tx: Db,
  input: { id: string; livemode: boolean; nowSeconds: number },
): Promise<{ ok: true; token: TokenRecord<T> } | { ok: false; reason: TokenRefusal }> {
  const updated = await tx.run(
    `UPDATE tokens SET used_at = $1 WHERE id = $2 AND livemode = $3 AND used_at IS NULL
      AND expires_at > $1`,
    [input.nowSeconds, input.id, input.livemode],
  );
  const token = await getToken<T>(tx, input.id, input.livemode);
  if (updated.changes === 1 && token) return { ok: true, token };
  if (!token) return { ok: false, reason: 'missing' };
  return { ok: false, reason: token.usedAt !== null ? 'used' : 'expired' };
}

/** The stored token, or `undefined`. */
export async function getToken<T = unknown>(
  db: Db,
  id: string,
  livemode: boolean,
): Promise<TokenRecord<T> | undefined> {
  const row = await db.get<Record<string, unknown>>(
    'SELECT * FROM tokens WHERE id = $1 AND livemode = $2',
    [id, livemode],
  );
  if (!row) return undefined;
  return {
    id: String(row.id),
    livemode: Number(row.livemode) === 1,
    type: String(row.type),
    keyId: row.key_id === null ? null : String(row.key_id),
    created: Number(row.created),
    expiresAt: Number(row.expires_at),
    usedAt: row.used_at === null ? null : Number(row.used_at),
    data: JSON.parse(String(row.data)) as T,
  };
}

/** Deletes tokens that expired before `beforeSeconds`; returns how many. */
export async function purgeExpiredTokens(db: Db, beforeSeconds: number): Promise<number> {
  return (await db.run('DELETE FROM tokens WHERE expires_at < $1', [beforeSeconds])).changes;
}
