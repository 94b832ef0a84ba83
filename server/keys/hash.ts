import { createHash } from 'node:crypto';

/**
 * The only form in which a key is stored: hex SHA-256 of the secret. Secrets carry 256
 * random bits, so a fast unsalted hash is enough (nothing to brute-force), and it lets a
 * request find its key with one indexed lookup.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
