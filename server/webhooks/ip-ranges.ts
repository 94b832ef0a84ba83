/**
 * Which IP addresses a webhook may never reach (the SSRF guard's address half): loopback,
 * private, link-local, carrier-grade NAT, unique-local v6, cloud metadata, and the special
 * ranges no public service lives in. Every IPv6 form that embeds an IPv4 address is judged by
 * the address inside: IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`
 * (RFC 2765/6145), IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`,
 * ISATAP interface ids and Teredo (server and client), so `::ffff:0:127.0.0.1` is loopback.
 * Parsing is Node's (`node:net`) and ipaddr.js's; nothing here reads address text by hand.
 */

import { BlockList, isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';
/** Why an address is refused; safe to show (no user data). */
export type AddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'unique_local'
  | 'metadata'
  | 'multicast'
  | 'reserved';

// [network, prefix, class] — checked most specific first, so metadata wins over link-local.
const V4_RANGES: ReadonlyArray<[string, number, AddressClass]> = [
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, OpenStack instance metadata
  ['168.63.129.16', 32, 'metadata'], // Azure wire server (a public-looking address)
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud metadata
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['169.254.0.0', 16, 'link_local'],
  ['100.64.0.0', 10, 'cgnat'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'reserved'], // documentation
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'], // 6to4 relay anycast
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // includes 255.255.255.255
];

const V6_RANGES: ReadonlyArray<[string, number, AddressClass]> = [
  ['fd00:ec2::254', 128, 'metadata'], // AWS metadata over IPv6
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'unique_local'],
  ['fe80::', 10, 'link_local'],
  ['fec0::', 10, 'private'], // deprecated site-local
  ['ff00::', 8, 'multicast'],
  ['100::', 64, 'reserved'], // discard-only
  ['2001:db8::', 32, 'reserved'], // documentation
  ['2001:10::', 28, 'reserved'], // ORCHID
  ['64:ff9b:1::', 48, 'reserved'], // local-use NAT64
];

function buildList(ranges: ReadonlyArray<[string, number, AddressClass]>, type: 'ipv4' | 'ipv6') {
  return ranges.map(([network, prefix, cls]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    return { list, cls };
  });
}

const V4 = buildList(V4_RANGES, 'ipv4');
const V6 = buildList(V6_RANGES, 'ipv6');

/** Where an IPv6 form carries IPv4 addresses: byte offsets, and whether it is a relay tunnel. */
interface Embedding {
  list: BlockList;
  /** Byte offsets of each embedded IPv4 address; `xor` ones are stored inverted. */
  at: ReadonlyArray<{ offset: number; xor?: boolean }>;
  /**
   * A tunnel through a third party's relay (Teredo): refused even when the addresses inside
   * are public, as no webhook receiver lives behind one; the inner class names a private one.
   */
  tunnel?: boolean;
}

function subnet(network: string, prefix: number): BlockList {
  const list = new BlockList();
  list.addSubnet(network, prefix, 'ipv6');
  return list;
}

// `::` and `::1` sit inside `::/96` but are judged as IPv6 first (unspecified, loopback).
const EMBEDDINGS: readonly Embedding[] = [
  { list: subnet('::ffff:0:0', 96), at: [{ offset: 12 }] }, // IPv4-mapped (RFC 4291)
  { list: subnet('::ffff:0:0:0', 96), at: [{ offset: 12 }] }, // IPv4-translated (RFC 2765)
  { list: subnet('::', 96), at: [{ offset: 12 }] }, // IPv4-compatible (deprecated)
  { list: subnet('64:ff9b::', 96), at: [{ offset: 12 }] }, // NAT64 well-known (RFC 6052)
  { list: subnet('2002::', 16), at: [{ offset: 2 }] }, // 6to4 (RFC 3056)
  // Teredo (RFC 4380): the server's address, then the client's, stored inverted.
  { list: subnet('2001::', 32), at: [{ offset: 4 }, { offset: 12, xor: true }], tunnel: true },
];

// ISATAP (RFC 5214): any /64 whose interface id is `0000:5efe:a.b.c.d` or `0200:5efe:a.b.c.d`.
const ISATAP_IDS = [
  [0x00, 0x00, 0x5e, 0xfe],
  [0x02, 0x00, 0x5e, 0xfe],
];

/**
 * The class of a forbidden address, or `null` when the address is public. Anything that is
 * not a well-formed IP address is `reserved` (refuse what cannot be judged).
 * @example classifyAddress('10.1.2.3') // 'private'; classifyAddress('93.184.216.34') // null
 */
export function classifyAddress(address: string): AddressClass | null {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return classifyV4(bare);
  if (!isIPv6(bare)) return 'reserved';
  const range = ipaddr.IPv6.parse(bare).range();
  if (range === 'unspecified' || range === 'loopback') return range;
  const embedded = embeddedIpv4(bare);
  if (embedded !== undefined) {
    for (const inner of embedded.addresses) {
      const cls = classifyV4(inner);
      if (cls !== null) return cls;
    }
    if (embedded.tunnel) return 'reserved';
    if (embedded.judgedByInner) return null;
  }
  for (const { list, cls } of V6) if (list.check(bare, 'ipv6')) return cls;
  return null;
}

/** Whether the address is a loopback one (127/8, ::1, or an IPv6 form of 127.x). */
export function isLoopback(address: string): boolean {
  return classifyAddress(address) === 'loopback';
}

function classifyV4(address: string): AddressClass | null {
  for (const { list, cls } of V4) if (list.check(address, 'ipv4')) return cls;
  return null;
}

/**
 * The IPv4 addresses an IPv6 address carries, or `undefined` when it carries none.
 * `judgedByInner`: the form routes to the address inside (mapped, translated, compatible,
 * NAT64, 6to4), so a public inner address makes it public; ISATAP is judged by its prefix
 * as well, Teredo (`tunnel`) is refused whatever it carries.
 * @example embeddedIpv4('::ffff:0:10.0.0.1') // { addresses: ['10.0.0.1'], judgedByInner: true, tunnel: false }
 */
export function embeddedIpv4(
  address: string,
): { addresses: string[]; judgedByInner: boolean; tunnel: boolean } | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv6(bare)) return undefined;
  const bytes = ipaddr.IPv6.parse(bare).toByteArray();
  const v4 = (offset: number, xor = false) =>
    ipaddr
      .fromByteArray(bytes.slice(offset, offset + 4).map((b) => (xor ? b ^ 0xff : b)))
      .toString();
  for (const form of EMBEDDINGS) {
    if (!form.list.check(bare, 'ipv6')) continue;
    return {
      addresses: form.at.map(({ offset, xor }) => v4(offset, xor)),
      judgedByInner: form.tunnel !== true,
      tunnel: form.tunnel === true,
    };
  }
  const id = bytes.slice(8, 12);
  if (ISATAP_IDS.some((isatap) => isatap.every((b, i) => b === id[i]))) {
    return { addresses: [v4(12)], judgedByInner: false, tunnel: false };
  }
  return undefined;
}
