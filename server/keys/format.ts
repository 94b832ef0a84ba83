import { randomBytes } from 'node:crypto';

import type { KeyKind } from '../../contract/key-kinds.js';

export type { KeyKind };

const PREFIX_BY_KIND: Record<KeyKind, string> = {
  secret: 'sk',
  restricted: 'rk',
  publishable: 'pk',
  ephemeral: 'ek',
};
const KIND_BY_PREFIX = new Map(Object.entries(PREFIX_BY_KIND).map(([k, p]) => [p, k as KeyKind]));

/** Random bytes behind every key: 32 (256 bits), above the 24-byte floor. */
const SECRET_BYTES = 32;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^(sk|rk|pk|ek)_(test|live)_([0-9A-Za-z]{20,128})$/;

/**
 * A new key secret, `<sk|rk|pk|ek>_<test|live>_<base62 of 32 random bytes>`.
 * @example generateSecret('secret', false) // 'sk_test_4eC39HqLyjWDarjtT1zdp7dc…'
 */
export function generateSecret(kind: KeyKind, livemode: boolean): string {
  let n = BigInt(`0x${randomBytes(SECRET_BYTES).toString('hex')}`);
  let body = '';
  while (n > 0n) {
    body = BASE62[Number(n % 62n)] + body;
    n /= 62n;
  }
  return `${PREFIX_BY_KIND[kind]}_${livemode ? 'live' : 'test'}_${body.padStart(43, '0')}`;
}

/** Kind and mode read from a secret's prefix, or `undefined` when it is not a key's shape. */
export function parseSecret(secret: string): { kind: KeyKind; livemode: boolean } | undefined {
  const match = KEY_PATTERN.exec(secret);
  const kind = match ? KIND_BY_PREFIX.get(match[1] ?? '') : undefined;
  if (!match || kind === undefined) return undefined;
  return { kind, livemode: match[2] === 'live' };
}

/** What `list` shows instead of the secret: prefix and last four characters. */
export function secretHint(secret: string): string {
  const prefix = secret.slice(0, secret.indexOf('_', 3) + 1);
  return `${prefix}…${secret.slice(-4)}`;
}
