/**
 * ULIDs (docs/design.md#ids): the time-sortable body of every id. Below everything else, so the
 * id prefixes (server/ids.ts, derived from the resource modules) can build on it.
 */
import { randomFillSync } from 'node:crypto';

/** Crockford's base32 alphabet (no I, L, O, U), the ULID alphabet. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;

/** Matches a ULID body: 26 Crockford base32 characters. */
export const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

let lastTime = -1;
// `lastTime` encoded: ids of one millisecond share it.
let lastTimeText = '';
// Random bytes drawn 4 KiB at a time (as Node's randomUUID does), 16 per fresh random part.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;
// The random part as 16 base32 digits (5 bits each), kept so ids minted in the same
// millisecond can be incremented and therefore still sort in creation order.
const lastRandom: number[] = new Array(RANDOM_CHARS).fill(0);

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function freshRandom(): void {
  if (poolOffset + RANDOM_CHARS > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  for (let i = 0; i < RANDOM_CHARS; i++) lastRandom[i] = (pool[poolOffset + i] ?? 0) & 31;
  poolOffset += RANDOM_CHARS;
}

function incrementRandom(): boolean {
  for (let i = RANDOM_CHARS - 1; i >= 0; i--) {
    const digit = lastRandom[i] ?? 0;
    if (digit < 31) {
      lastRandom[i] = digit + 1;
      return true;
    }
    lastRandom[i] = 0;
  }
  return false;
}

/**
 * A monotonic ULID: 48-bit millisecond time then 80 random bits, Crockford base32.
 * Within one millisecond (or if the clock steps back) the random part is incremented, so ids
 * from this process always sort in the order they were made.
 */
export function ulid(nowMs: number = Date.now()): string {
  if (nowMs > lastTime) {
    lastTime = nowMs;
    lastTimeText = encodeTime(lastTime);
    freshRandom();
  } else if (!incrementRandom()) {
    // 2^80 ids in one millisecond cannot happen; borrow the next millisecond rather than repeat.
    lastTime += 1;
    lastTimeText = encodeTime(lastTime);
    freshRandom();
  }
  let out = lastTimeText;
  for (let i = 0; i < RANDOM_CHARS; i++) out += ALPHABET[lastRandom[i] ?? 0];
  return out;
}

/** The millisecond timestamp encoded in an id's ULID, or `undefined` when it is not one. */
export function idTime(id: string): number | undefined {
  const body = id.slice(id.lastIndexOf('_') + 1);
  if (!ULID_PATTERN.test(body)) return undefined;
  let ms = 0;
  for (const ch of body.slice(0, TIME_CHARS)) ms = ms * 32 + ALPHABET.indexOf(ch);
  return ms;
}
