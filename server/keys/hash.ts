import * as crypto from 'node:crypto';

/**
 * The only form in which a key is stored: hex SHA-256 of the secret. Secrets carry 256
 * random bits, so a fast unsalted hash is enough (nothing to brute-force), and it lets a
 * request find its key with one indexed lookup.
 */
export function hashSecret(secret: string): string {
  // One-shot `crypto.hash` (Node ≥ 20.12) skips the Hash object every request would build.
  if (oneShot !== undefined) return oneShot('sha256', secret, 'hex');
  return crypto.createHash('sha256').update(secret, 'utf8').digest('hex');
}

type OneShotHash = (algorithm: string, data: string, encoding: 'hex') => string;
const oneShot = (crypto as { hash?: OneShotHash }).hash;
