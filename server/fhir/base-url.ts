/**
 * The absolute FHIR base every `fullUrl`, `link.url` and `Location` is built on
 * (docs/design.md#fhir-r4): `PUBLIC_URL` + `/fhir/R4` when set, else the address the server
 * accepted the connection on (the socket's local address and port: the listening address,
 * made concrete when the server listens on a wildcard). Never the `Host` header: that is the
 * client's text, and links built from it would let anyone who can reach the service make it
 * hand out URLs to a host of their choosing.
 */
import type { Socket } from 'node:net';
import { FHIR_BASE } from './paths.js';

/** Where a request without a real socket (`inject()`) is said to have arrived. */
const DEFAULT_ORIGIN = 'http://127.0.0.1:4010';

/** The origin of a socket's local end, `http://[::1]:4010` style for IPv6. */
function socketOrigin(socket: Pick<Socket, 'localAddress' | 'localPort'> | undefined): string {
  const address = socket?.localAddress;
  const port = socket?.localPort;
  if (address === undefined || port === undefined) return DEFAULT_ORIGIN;
  const host = address.startsWith('::ffff:') ? address.slice(7) : address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * The FHIR base for a request on `socket`; `publicUrl` is `PUBLIC_URL` as `loadConfig` checked
 * it (absolute, no trailing slash).
 */
export function fhirBaseUrl(
  publicUrl: string | undefined,
  socket: Pick<Socket, 'localAddress' | 'localPort'> | undefined,
): string {
  return `${publicUrl ?? socketOrigin(socket)}${FHIR_BASE}`;
}
