/**
 * Object ids (docs/design.md#ids): `prefix_` + ULID (server/ulid.ts). A resource's prefix is
 * written once, in its module under server/resources/; the other prefixes are listed here.
 */
import type { ResourcePrefix } from './resources/index.js';
import { ULID_PATTERN, ulid } from './ulid.js';

/** The type prefixes objects carry; the part before `_` in every id. */
export type IdPrefix =
  | ResourcePrefix
  | 'evt'
  | 'tok'
  | 'ephkey'
  | 'req'
  | 'key'
  | 'whd'
  | 'whda'
  | 'aud'
  | 'audb';

/**
 * A new object id: `prefix_` + ULID.
 * @example newId('evt') // 'evt_01JD3X6ZQ4T0M8K2V9R5N7B1CE'
 */
export function newId(prefix: IdPrefix, nowMs?: number): string {
  return `${prefix}_${ulid(nowMs)}`;
}

/** Whether `id` is `prefix_` followed by a well-formed ULID. */
export function isId(prefix: IdPrefix, id: string): boolean {
  return id.startsWith(`${prefix}_`) && ULID_PATTERN.test(id.slice(prefix.length + 1));
}
