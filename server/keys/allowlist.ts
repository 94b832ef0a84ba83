import { BlockList, isIP } from 'node:net';

/** A CIDR (or single address) an allowlist accepts; v4 and v6. */
export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/**
 * Parses `10.0.0.0/8`, `2001:db8::/32` or a bare address (a /32 or /128).
 * Returns `undefined` for anything else, including prefixes out of range.
 */
export function parseCidr(text: string): Cidr | undefined {
  const [address, prefixText, ...rest] = text.trim().split('/');
  if (address === undefined || rest.length > 0) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Validates a list; throws naming the first bad entry (addresses are not PHI). */
export function validateAllowlist(entries: readonly string[]): string[] {
  return entries.map((entry) => {
    const cidr = parseCidr(entry);
    if (!cidr) throw new Error(`not an IP address or CIDR range: ${entry}`);
    return `${cidr.address}/${cidr.prefix}`;
  });
}

/**
 * Whether `ip` falls in the allowlist. An empty list allows everyone. IPv4 clients seen on
 * a dual-stack socket as `::ffff:a.b.c.d` are matched as the IPv4 address they are.
 */
export function ipAllowed(allowlist: readonly string[], ip: string): boolean {
  if (allowlist.length === 0) return true;
  const blocks = toBlockList(allowlist);
  const version = isIP(ip);
  if (version === 0) return false;
  if (version === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
    if (mapped && blocks.check(mapped, 'ipv4')) return true;
    return blocks.check(ip, 'ipv6');
  }
  return blocks.check(ip, 'ipv4');
}

// Keys are looked up on every request; their BlockLists are built once per distinct list.
const cache = new Map<string, BlockList>();

function toBlockList(allowlist: readonly string[]): BlockList {
  const cacheKey = allowlist.join(',');
  let blocks = cache.get(cacheKey);
  if (!blocks) {
    blocks = new BlockList();
    for (const entry of allowlist) {
      const cidr = parseCidr(entry);
      if (cidr) blocks.addSubnet(cidr.address, cidr.prefix, cidr.family);
    }
    if (cache.size > 1000) cache.clear();
    cache.set(cacheKey, blocks);
  }
  return blocks;
}
