/**
 * IP allowlists of secret and restricted keys (api.md §8): CIDR ranges and single addresses,
 * IPv4 and IPv6, checked with `node:net`'s BlockList. A key's list is compiled once and reused.
 */
import { BlockList, isIP } from 'node:net';

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * The address in the form it is compared in: an IPv4-mapped IPv6 address (what a dual-stack
 * socket reports for an IPv4 client) becomes the plain IPv4 address.
 */
export function normalizeIp(address: string): string {
  const mapped = MAPPED_V4.exec(address);
  return mapped ? mapped[1]! : address;
}

/** Compiles allowlist entries (`10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7`); bad entries match nothing. */
export function compileAllowlist(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const raw of entries) {
    const entry = raw.trim();
    const slash = entry.indexOf('/');
    const address = normalizeIp(slash === -1 ? entry : entry.slice(0, slash));
    const version = isIP(address);
    if (version === 0) continue;
    const type = version === 4 ? 'ipv4' : 'ipv6';
    if (slash === -1) {
      list.addAddress(address, type);
      continue;
    }
    const prefix = Number(entry.slice(slash + 1));
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (version === 4 ? 32 : 128)) continue;
    list.addSubnet(address, prefix, type);
  }
  return list;
}

// Keys are few; a bounded cache keyed by the list's text saves recompiling on every request.
const cache = new Map<string, BlockList>();
const CACHE_LIMIT = 1000;

/** Whether `clientIp` is inside the allowlist; an empty or missing list allows every address. */
export function ipAllowed(entries: readonly string[] | null, clientIp: string): boolean {
  if (entries === null || entries.length === 0) return true;
  const cacheKey = entries.join(',');
  let list = cache.get(cacheKey);
  if (list === undefined) {
    list = compileAllowlist(entries);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(cacheKey, list);
  }
  const address = normalizeIp(clientIp);
  const version = isIP(address);
  if (version === 0) return false;
  return list.check(address, version === 4 ? 'ipv4' : 'ipv6');
}
