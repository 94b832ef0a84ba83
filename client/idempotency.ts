/**
 * Idempotency keys (docs/design.md#idempotency): every POST carries an `Idempotency-Key`, so a
 * retry after a lost response replays the first result instead of writing twice. The key is set
 * once on the request before the first attempt; every retry sends a clone of that request, hence
 * the same key.
 */

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** A random UUID from Web Crypto (Node ≥ 19, browsers in secure contexts); carries no PHI. */
export function randomIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * Adds an `Idempotency-Key` to a POST that has none and returns the key in effect (`undefined`
 * for other methods). A key the caller set (header option or `params.header`) is kept as is.
 */
export function ensureIdempotencyKey(
  request: Request,
  generate: () => string = randomIdempotencyKey,
): string | undefined {
  if (request.method !== 'POST') return request.headers.get(IDEMPOTENCY_HEADER) ?? undefined;
  const given = request.headers.get(IDEMPOTENCY_HEADER);
  if (given) return given;
  const key = generate();
  request.headers.set(IDEMPOTENCY_HEADER, key);
  return key;
}
