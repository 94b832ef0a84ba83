import { describe, expect, it } from 'vitest';
import { classifyAddress, embeddedIpv4 } from '../../server/webhooks/ip-ranges.js';
import {
  checkWebhookUrl,
  type Resolver,
  resolveDeliveryTarget,
} from '../../server/webhooks/url-guard.js';

// A fake DNS: names map to address lists; anything else does not resolve.
const DNS: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'dual.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'rebind.example.com': ['127.0.0.1'],
  'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
  'metadata.example.com': ['169.254.169.254'],
  'v6private.example.com': ['fd12:3456::1'],
  'mapped.example.com': ['::ffff:192.168.1.1'],
  localhost: ['127.0.0.1', '::1'],
};
const resolver: Resolver = async (host) => {
  const found = DNS[host];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

type Want = 'ok' | string;
// [url, livemode, want: 'ok' or the refusal reason, operator allows private targets]
const TABLE: Array<[string, boolean, Want, boolean?]> = [
  ['https://hooks.example.com/pc', true, 'ok'],
  ['https://dual.example.com/pc', true, 'ok'],
  ['https://hooks.example.com:8443/pc?x=1', true, 'ok'],
  ['https://unknown.example.org/pc', true, 'ok'], // unresolvable at create: checked per delivery
  ['http://hooks.example.com/pc', true, 'scheme'],
  ['http://hooks.example.com/pc', false, 'scheme'],
  ['ftp://hooks.example.com/pc', true, 'scheme'],
  ['not a url', true, 'invalid'],
  ['/relative/path', false, 'invalid'],
  ['https://user:pw@hooks.example.com/pc', true, 'credentials'],
  ['https://hooks.example.com/pc#frag', true, 'fragment'],
  [`https://hooks.example.com/${'a'.repeat(2100)}`, true, 'too_long'],
  // Test-mode conveniences: only in test mode, and only with the operator's opt-in.
  ['http://localhost:3000/hook', false, 'ok', true],
  ['http://127.0.0.1:3000/hook', false, 'ok', true],
  ['http://[::1]:3000/hook', false, 'ok', true],
  ['http://localhost./hook', false, 'ok', true],
  ['http://localhost:3000/hook', false, 'host'],
  ['http://127.0.0.1:3000/hook', false, 'host'],
  ['http://[::1]:3000/hook', false, 'host'],
  ['http://localhost:3000/hook', true, 'scheme', true],
  ['http://localhost:3000/hook', true, 'host'],
  ['https://localhost/hook', true, 'host'],
  ['http://127.0.0.1:3000/hook', true, 'scheme', true],
  ['http://127.0.0.1:3000/hook', true, 'host'],
  // The opt-in allows loopback, private and unique-local targets in both modes, nothing more.
  ['https://127.0.0.1/hook', true, 'ok', true],
  ['https://10.1.2.3/hook', true, 'ok', true],
  ['https://[fd12:3456::1]/hook', false, 'ok', true],
  ['https://v6private.example.com/hook', true, 'ok', true],
  ['https://intranet/hook', true, 'ok', true], // judged by its addresses at delivery
  ['https://10.1.2.3/hook', false, 'address'],
  ['https://169.254.169.254/hook', true, 'address', true],
  ['https://[::ffff:0:a9fe:a9fe]/hook', false, 'address', true],
  ['https://0.0.0.0/hook', true, 'address', true],
  ['https://100.64.0.1/hook', true, 'address', true],
  ['https://[fe80::1]/hook', true, 'address', true],
  ['https://metadata.example.com/hook', false, 'address', true],
  ['https://127.0.0.1/hook', true, 'address'],
  ['https://[::1]/hook', true, 'address'],
  ['http://127.0.0.2/hook', false, 'scheme'], // only 127.0.0.1 is the test loophole
  ['https://127.0.0.2/hook', false, 'address'],
  // Obscure IPv4 spellings all normalise to an address that is then judged.
  ['https://2130706433/hook', true, 'address'], // decimal 127.0.0.1
  ['https://0x7f000001/hook', true, 'address'], // hex
  ['https://0x7f.1/hook', true, 'address'],
  ['https://017700000001/hook', true, 'address'], // octal
  ['https://127.1/hook', true, 'address'],
  ['https://0/hook', true, 'address'], // 0.0.0.0
  ['https://10.1.2.3/hook', true, 'address'],
  ['https://172.16.0.1/hook', true, 'address'],
  ['https://172.32.0.1/hook', true, 'ok'],
  ['https://192.168.0.1/hook', true, 'address'],
  ['https://169.254.169.254/latest/meta-data', true, 'address'],
  ['https://169.254.1.1/hook', true, 'address'],
  ['https://100.64.0.1/hook', true, 'address'], // CGNAT
  ['https://100.100.100.200/hook', true, 'address'], // Alibaba metadata
  ['https://168.63.129.16/hook', true, 'address'], // Azure wire server
  ['https://224.0.0.1/hook', true, 'address'],
  ['https://255.255.255.255/hook', true, 'address'],
  ['https://8.8.8.8/hook', true, 'ok'],
  // IPv6 literals.
  ['https://[2606:2800:220:1::1]/hook', true, 'ok'],
  ['https://[::]/hook', true, 'address'],
  ['https://[fe80::1]/hook', true, 'address'],
  ['https://[fd00:ec2::254]/hook', true, 'address'],
  ['https://[fc00::1]/hook', true, 'address'],
  ['https://[::ffff:127.0.0.1]/hook', true, 'address'],
  ['https://[::ffff:7f00:1]/hook', true, 'address'],
  ['https://[::ffff:a00:1]/hook', true, 'address'], // mapped 10.0.0.1
  ['https://[64:ff9b::a9fe:a9fe]/hook', true, 'address'], // NAT64 of 169.254.169.254
  ['https://[2002:c0a8:101::1]/hook', true, 'address'], // 6to4 of 192.168.1.1
  ['https://[2001:db8::1]/hook', true, 'address'],
  ['https://[ff02::1]/hook', true, 'address'],
  // Every IPv6 form that embeds an IPv4 address is judged by the address inside.
  ['https://[::ffff:0:7f00:1]/hook', true, 'address'], // IPv4-translated (RFC 2765) 127.0.0.1
  ['https://[::ffff:0:127.0.0.1]/hook', true, 'address'],
  ['https://[::ffff:0:a9fe:a9fe]/hook', true, 'address'], // translated metadata
  ['https://[::ffff:0:a00:1]/hook', true, 'address'], // translated 10.0.0.1
  ['https://[::a9fe:a9fe]/hook', true, 'address'], // IPv4-compatible metadata
  ['https://[64:ff9b::7f00:1]/hook', true, 'address'], // NAT64 loopback
  ['https://[64:ff9b:1::a00:1]/hook', true, 'address'], // local-use NAT64
  ['https://[2002:7f00:1::1]/hook', true, 'address'], // 6to4 loopback
  ['https://[2001:0:7f00:1::1]/hook', true, 'address'], // Teredo, server 127.0.0.1
  ['https://[2001:0:808:808::f5ff:fffe]/hook', true, 'address'], // Teredo, client 10.0.0.1
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', true, 'address'], // Teredo, public
  ['https://[2606:4700::5efe:a00:1]/hook', true, 'address'], // ISATAP of 10.0.0.1
  ['https://[::ffff:0:808:808]/hook', true, 'ok'], // translated 8.8.8.8: public
  ['https://[64:ff9b::808:808]/hook', true, 'ok'],
  ['https://[2002:808:808::1]/hook', true, 'ok'],
  ['https://[2606:4700::5efe:808:808]/hook', true, 'ok'],
  // Names: internal suffixes refused outright, resolved names judged on every address.
  ['https://metadata.google.internal/computeMetadata', true, 'host'],
  ['https://printer.local/hook', true, 'host'],
  ['https://intranet/hook', true, 'host'],
  ['https://rebind.example.com/hook', true, 'address'],
  ['https://rebind.example.com/hook', false, 'address'],
  ['https://mixed.example.com/hook', true, 'address'],
  ['https://metadata.example.com/hook', true, 'address'],
  ['https://v6private.example.com/hook', true, 'address'],
  ['https://mapped.example.com/hook', true, 'address'],
];

describe('checkWebhookUrl (create/update)', () => {
  it.each(TABLE)('%s (live %s) → %s (private allowed: %s)', async (url, livemode, want, allow) => {
    const verdict = await checkWebhookUrl(url, {
      livemode,
      resolver,
      allowPrivate: allow === true,
    });
    expect(verdict.ok ? 'ok' : verdict.reason).toBe(want);
  });

  it('names the refused class, never the address, in the message', async () => {
    const verdict = await checkWebhookUrl('https://rebind.example.com/x', {
      livemode: true,
      resolver,
    });
    expect(verdict).toMatchObject({ ok: false, addressClass: 'loopback' });
    expect(verdict.ok ? '' : verdict.message).not.toContain('127.0.0.1');
  });

  it('refuses test-mode localhost that resolves off the machine', async () => {
    const evil: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const verdict = await checkWebhookUrl('http://localhost:9/x', {
      livemode: false,
      resolver: evil,
      allowPrivate: true,
    });
    expect(verdict.ok ? 'ok' : verdict.reason).toBe('address');
  });

  it('does not wait forever on a hanging resolver', async () => {
    const hang: Resolver = () => new Promise(() => {});
    const verdict = await checkWebhookUrl('https://slow.example.com/x', {
      livemode: true,
      resolver: hang,
      resolveTimeoutMs: 20,
    });
    expect(verdict.ok).toBe(true);
  });
});

describe('resolveDeliveryTarget (every delivery)', () => {
  it('refuses a name that re-bound to loopback since creation', async () => {
    const before = await checkWebhookUrl('https://flip.example.com/x', {
      livemode: true,
      resolver: async () => [{ address: '93.184.216.34', family: 4 }],
    });
    expect(before.ok).toBe(true);
    const after = await resolveDeliveryTarget('https://flip.example.com/x', {
      livemode: true,
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(after).toMatchObject({ ok: false, reason: 'address' });
  });

  it('needs the name to resolve, and returns the checked addresses to connect to', async () => {
    expect(
      await resolveDeliveryTarget('https://unknown.example.org/x', { livemode: true, resolver }),
    ).toMatchObject({ ok: false, reason: 'unresolvable' });
    const target = await resolveDeliveryTarget('https://dual.example.com/x', {
      livemode: true,
      resolver,
    });
    expect(target.ok && target.addresses.map((a) => a.address)).toEqual(DNS['dual.example.com']);
  });
});

describe('address classes', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['fd00::1', 'unique_local'],
    ['fe80::1%eth0', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['100.64.1.1', 'cgnat'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::7f00:1', 'loopback'], // IPv4-compatible form
    ['::ffff:0:7f00:1', 'loopback'], // IPv4-translated form
    ['::ffff:0:a9fe:a9fe', 'metadata'],
    ['[::ffff:0:a9fe:a9fe]', 'metadata'],
    ['64:ff9b::a00:1', 'private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'], // Teredo: a relay tunnel
    ['::ffff:0:808:808', null],
    ['93.184.216.34', null],
    ['2606:4700::1111', null],
    ['not-an-ip', 'reserved'],
  ])('%s → %s', (address, want) => {
    expect(classifyAddress(address)).toBe(want);
  });

  it('finds the IPv4 addresses inside every embedding form', () => {
    const inner = (a: string) => embeddedIpv4(a)?.addresses;
    expect(inner('::ffff:10.0.0.1')).toEqual(['10.0.0.1']);
    expect(inner('::ffff:0:10.0.0.1')).toEqual(['10.0.0.1']);
    expect(inner('::10.0.0.1')).toEqual(['10.0.0.1']);
    expect(inner('64:ff9b::808:808')).toEqual(['8.8.8.8']);
    expect(inner('2002:c0a8:101::')).toEqual(['192.168.1.1']);
    // Teredo: server 65.54.227.120, client 192.0.2.45 stored inverted (RFC 4380's example).
    expect(inner('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toEqual(['65.54.227.120', '192.0.2.45']);
    expect(inner('fe80::200:5efe:c0a8:101')).toEqual(['192.168.1.1']);
    expect(inner('2606:4700::1111')).toBeUndefined();
  });
});
