/**
 * Well-formed ids for cases that must get 404 (a random 26-character Crockford base32 body),
 * and malformed ones for cases that must get a 400 or 404 but never a 2xx.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** 26 Crockford base32 characters from a seed (deterministic, so cases replay). */
export function randomUlidBody(seed: number): string {
  let state = seed >>> 0 || 1;
  let out = '';
  for (let i = 0; i < 26; i++) {
    // xorshift32: enough spread for ids that must not collide with real ones.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out += CROCKFORD[(state >>> 0) % 32];
  }
  // Mostly a plausible time part (first character 0-7); sometimes `Z`, which the pattern allows
  // though no 48-bit ULID time has it: the service must still just answer 404.
  const first = seed % 5 === 0 ? 'Z' : CROCKFORD[seed % 8];
  return `${first}${out.slice(1)}`;
}

/** Malformed variants of a valid id `id` (prefix `prefix`). */
export function malformedIds(id: string, prefix: string): string[] {
  const body = id.slice(prefix.length + 1);
  return [
    `${prefix}_${body.toLowerCase()}`,
    `${prefix}_${body.slice(1)}`,
    `${prefix}_${body}0`,
    `${prefix}_${'I'.repeat(26)}`,
    `${prefix === 'pat' ? 'appt' : 'pat'}_${body}`,
    body,
    `${prefix}_`,
    `${prefix}_${body.slice(0, 25)}é`,
    `${prefix}_${'0'.repeat(300)}`,
    ' ',
    `${id}%00`,
    `${id}'--`,
  ];
}
