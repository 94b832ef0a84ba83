/**
 * Which IP addresses a webhook may never reach (the SSRF guard's address half): loopback,
 * private, link-local, carrier-grade NAT, unique-local v6, cloud metadata, and the special
 * ranges no public service lives in. IPv6 forms that embed an IPv4 address (mapped,
 * compatible, NAT64, 6to4) are judged by the IPv4 address inside, so `::ffff:127.0.0.1`
 * is loopback too.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

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
  ['2001::', 32, 'reserved'], // Teredo: tunnels to arbitrary IPv4 addresses
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

/**
 * The class of a forbidden address, or `null` when the address is public. Anything that is
 * not a well-formed IP address is `reserved` (refuse what cannot be judged).
 * @example classifyAddress('10.1.2.3') // 'private'; classifyAddress('93.184.216.34') // null
 */
export function classifyAddress(address: string): AddressClass | null {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return classifyV4(bare);
  if (!isIPv6(bare)) return 'reserved';
  const embedded = embeddedIpv4(bare);
  if (embedded !== undefined) return classifyV4(embedded);
  for (const { list, cls } of V6) if (list.check(bare, 'ipv6')) return cls;
  return null;
}

/** Whether the address is a loopback one (127/8, ::1, or ::ffff:127.x). */
export function isLoopback(address: string): boolean {
  return classifyAddress(address) === 'loopback';
}

function classifyV4(address: string): AddressClass | null {
  for (const { list, cls } of V4) if (list.check(address, 'ipv4')) return cls;
  return null;
}

/**
 * The IPv4 address an IPv6 address carries, for the forms that route to it: IPv4-mapped
 * `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d` (deprecated), NAT64 `64:ff9b::/96` and
 * 6to4 `2002:AABB:CCDD::/48`.
 */
export function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (groups === undefined) return undefined;
  const lastTwo = (hi: number, lo: number) =>
    [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].map(String).join('.');
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return lastTwo(groups[6]!, groups[7]!);
  // `::` and `::1` are not IPv4-compatible addresses; they are judged as IPv6.
  if (zeros(0, 6) && (groups[6] !== 0 || groups[7]! > 1)) return lastTwo(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) {
    return lastTwo(groups[6]!, groups[7]!);
  }
  if (groups[0] === 0x2002) return lastTwo(groups[1]!, groups[2]!);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address, or `undefined` when it is not one. */
export function expandIpv6(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, '').toLowerCase();
  if (!isIPv6(text)) return undefined;
  // A trailing dotted quad is two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined) =>
    part === undefined || part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16));
  const left = parse(head);
  const right = parse(tail);
  const fill = tail === undefined ? [] : new Array(8 - left.length - right.length).fill(0);
  const groups = [...left, ...fill, ...right];
  return groups.length === 8 ? groups : undefined;
}
