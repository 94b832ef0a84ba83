/**
 * The webhook URL rules (spec: Webhooks tag): absolute, ≤ 2048 characters, no user info, no
 * fragment; live mode `https` only and never an address a server-side request must not reach
 * (see `ip-ranges.ts`).
 *
 * Loopback, private and unique-local targets need the operator's opt-in
 * (`allowPrivate`, from `WEBHOOK_ALLOW_PRIVATE_TARGETS`; on by default only when the service
 * listens on loopback), in both modes: without it a test key could point endpoints at local
 * ports and read which answer from its deliveries list. With it, test mode also allows
 * `http://localhost`, `http://127.0.0.1` and `http://[::1]`, which must then really be
 * loopback, and internal host names are let through to be judged by their addresses.
 * Metadata, link-local, CGNAT and the other special ranges are refused whatever the setting.
 *
 * Names are resolved and every address is checked, both when an endpoint is created or
 * updated (`checkWebhookUrl`) and again before each delivery (`resolveDeliveryTarget`), whose
 * addresses the transport then connects to, so a name that re-binds to an internal address
 * after the first check is still refused.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type AddressClass, classifyAddress, isLoopback } from './ip-ranges.js';

/** One resolved address. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (injectable for tests). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (`getaddrinfo`, so `/etc/hosts` counts), every address. */
export const systemResolver: Resolver = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export const MAX_URL_LENGTH = 2048;

/** Why a URL is refused; `message` is safe for an API error (it names no address). */
export interface UrlRefusal {
  ok: false;
  reason:
    | 'invalid'
    | 'too_long'
    | 'scheme'
    | 'credentials'
    | 'fragment'
    | 'host'
    | 'address'
    | 'unresolvable';
  message: string;
  /** For `address`: the class of the first forbidden address. */
  addressClass?: AddressClass;
}

export interface UrlGuardOptions {
  livemode: boolean;
  /** The operator allows loopback, private and unique-local targets (default false). */
  allowPrivate?: boolean;
  /** Default: the system resolver. */
  resolver?: Resolver;
  /** How long a resolution may take before the name counts as unresolvable (ms, default 3000). */
  resolveTimeoutMs?: number;
}

// The address classes the operator's opt-in allows; every other class stays refused.
const PRIVATE_CLASSES: ReadonlySet<AddressClass> = new Set(['loopback', 'private', 'unique_local']);

// The host names (as `URL` normalises them) test mode lets through to loopback.
const TEST_LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
// Names that only mean something inside a network or a cloud: refused without a lookup.
const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa'];

function refuse(reason: UrlRefusal['reason'], message: string, cls?: AddressClass): UrlRefusal {
  return cls === undefined
    ? { ok: false, reason, message }
    : { ok: false, reason, message, addressClass: cls };
}

/** The URL's form, without any lookup: scheme, credentials, fragment, host names. */
export function checkUrlShape(
  raw: string,
  livemode: boolean,
  allowPrivate = false,
): { ok: true; url: URL; local: boolean } | UrlRefusal {
  if (raw.length > MAX_URL_LENGTH) {
    return refuse('too_long', `url must be at most ${MAX_URL_LENGTH} characters.`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('invalid', 'url must be an absolute http(s) URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return refuse('scheme', 'url must use https.');
  }
  if (url.username !== '' || url.password !== '') {
    return refuse('credentials', 'url must not contain a user name or password.');
  }
  if (url.hash !== '' || raw.includes('#')) {
    return refuse('fragment', 'url must not contain a fragment.');
  }
  const host = url.hostname.replace(/\.$/, '');
  if (host === '') return refuse('host', 'url must name a host.');
  const local = !livemode && allowPrivate && TEST_LOCAL_HOSTS.has(host);
  if (local) return { ok: true, url, local };
  // Say why `http://localhost` fails here, rather than only that it is not https.
  if (!allowPrivate && url.protocol === 'http:' && TEST_LOCAL_HOSTS.has(host)) {
    return refusePrivate('host');
  }
  if (url.protocol !== 'https:') {
    return refuse(
      'scheme',
      livemode || !allowPrivate
        ? `url must use https${livemode ? ' in live mode' : ''}.`
        : 'url must use https (test mode also allows http://localhost, http://127.0.0.1 and http://[::1]).',
    );
  }
  if (allowPrivate) return { ok: true, url, local };
  const singleLabel = !host.includes('.') && isIP(bare(host)) === 0;
  if (host === 'localhost' || singleLabel || INTERNAL_SUFFIXES.some((s) => host.endsWith(s))) {
    return refuse('host', 'url must name a public host.');
  }
  return { ok: true, url, local };
}

/** Brackets off an IPv6 literal (`URL` keeps them in `hostname`). */
function bare(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}

/** The refusal of a loopback or private target the operator has not allowed. */
function refusePrivate(reason: 'host' | 'address', cls?: AddressClass): UrlRefusal {
  return refuse(
    reason,
    'url must point to a public address: this server does not accept loopback or private webhook targets.',
    cls,
  );
}

/** Checks every address against the rules; `undefined` when all pass. */
function checkAddresses(
  addresses: readonly ResolvedAddress[],
  local: boolean,
  allowPrivate: boolean,
): UrlRefusal | undefined {
  for (const { address } of addresses) {
    if (local) {
      if (!isLoopback(address)) {
        return refuse('address', 'localhost must resolve to a loopback address.');
      }
      continue;
    }
    const cls = classifyAddress(address);
    if (cls === null || (allowPrivate && PRIVATE_CLASSES.has(cls))) continue;
    if (PRIVATE_CLASSES.has(cls)) return refusePrivate('address', cls);
    return refuse('address', `url must not point to a ${cls.replace('_', '-')} address.`, cls);
  }
  return undefined;
}

async function resolve(
  hostname: string,
  options: UrlGuardOptions,
): Promise<ResolvedAddress[] | undefined> {
  const host = bare(hostname.replace(/\.$/, ''));
  const family = isIP(host);
  if (family !== 0) return [{ address: host, family: family === 6 ? 6 : 4 }];
  const resolver = options.resolver ?? systemResolver;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((done) => {
    timer = setTimeout(() => done(undefined), options.resolveTimeoutMs ?? 3000);
  });
  try {
    const found = await Promise.race([resolver(host).catch(() => undefined), timeout]);
    return found === undefined || found.length === 0 ? undefined : found;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The check at create and update. A name that does not resolve (yet) is accepted: it reaches
 * nothing, and every delivery checks it again. A literal address or a name that resolves is
 * judged on every address.
 * @example
 * const verdict = await checkWebhookUrl(body.url, { livemode: ctx.livemode });
 * if (!verdict.ok) throw new ApiError('parameter_invalid', { param: 'url', message: verdict.message });
 */
export async function checkWebhookUrl(
  raw: string,
  options: UrlGuardOptions,
): Promise<{ ok: true; url: string } | UrlRefusal> {
  const allowPrivate = options.allowPrivate === true;
  const shape = checkUrlShape(raw, options.livemode, allowPrivate);
  if (!shape.ok) return shape;
  const addresses = await resolve(shape.url.hostname, options);
  if (addresses !== undefined) {
    const refused = checkAddresses(addresses, shape.local, allowPrivate);
    if (refused) return refused;
  }
  return { ok: true, url: shape.url.href };
}

/** Where a delivery may connect: the parsed URL and the checked addresses to use. */
export interface DeliveryTarget {
  ok: true;
  url: URL;
  addresses: ResolvedAddress[];
}

/**
 * The check before each delivery: the same rules, and the name must resolve. The transport
 * connects only to the returned addresses, so the check and the connection see the same DNS
 * answer (no rebinding window).
 */
export async function resolveDeliveryTarget(
  raw: string,
  options: UrlGuardOptions,
): Promise<DeliveryTarget | UrlRefusal> {
  const allowPrivate = options.allowPrivate === true;
  const shape = checkUrlShape(raw, options.livemode, allowPrivate);
  if (!shape.ok) return shape;
  const addresses = await resolve(shape.url.hostname, options);
  if (addresses === undefined) return refuse('unresolvable', 'url host does not resolve.');
  const refused = checkAddresses(addresses, shape.local, allowPrivate);
  if (refused) return refused;
  return { ok: true, url: shape.url, addresses };
}
