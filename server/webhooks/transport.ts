/**
 * Sends one signed delivery over HTTP and reports only what the attempt log keeps: the status
 * code or a short error class — never the response body, which may echo anything.
 *
 * The default transport uses `node:http`/`node:https` with keep-alive agents and a `lookup`
 * that returns only the addresses the URL guard checked, so the connection goes exactly where
 * the check said it may. Redirects are never followed (a 3xx is a failed attempt): following
 * one would reach a URL nobody checked.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { DeliveryTarget, ResolvedAddress } from './url-guard.js';

/** Short, body-free reasons an attempt failed without an HTTP status. */
export type DeliveryErrorClass =
  | 'timeout'
  | 'connection_refused'
  | 'connection_reset'
  | 'host_unreachable'
  | 'dns_failure'
  | 'tls_error'
  | 'url_refused'
  | 'endpoint_disabled'
  | 'network_error';

export interface SendRequest {
  target: DeliveryTarget;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  livemode: boolean;
}

export interface SendResult {
  statusCode: number | null;
  error: DeliveryErrorClass | null;
}

/** Sends one request; resolves (never rejects) with the outcome. */
export type Transport = (request: SendRequest) => Promise<SendResult>;

// A receiver's reply is drained and dropped; past this many bytes the socket is cut instead.
const MAX_DRAIN_BYTES = 64 * 1024;

/** Maps a Node network error to its class. */
export function classifyNetworkError(err: unknown): DeliveryErrorClass {
  const code = String(
    (err as { code?: unknown })?.code ?? (err as { cause?: { code?: unknown } })?.cause?.code ?? '',
  );
  const name = String((err as { name?: unknown })?.name ?? '');
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'ETIMEDOUT') return 'timeout';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET')
    return 'connection_reset';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host_unreachable';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns_failure';
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return 'tls_error';
  return 'network_error';
}

/** A `lookup` that answers only with the already-checked addresses. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
    const usable = addresses.filter((a) => wanted === 0 || a.family === wanted);
    const cb = callback as (...args: unknown[]) => void;
    const first = usable[0];
    if (first === undefined) {
      cb(Object.assign(new Error('no checked address of that family'), { code: 'ENOTFOUND' }));
    } else if (options.all) {
      cb(
        null,
        usable.map((a) => ({ address: a.address, family: a.family })),
      );
    } else {
      cb(null, first.address, first.family);
    }
  };
}

/**
 * The default transport. Separate agents per mode keep a socket opened under test-mode rules
 * (loopback allowed) from ever carrying a live delivery.
 *
 * Nothing a receiver does can hold an attempt past its deadline: the one timer covers the
 * connection, the headers and the body, and settles the attempt itself when it fires rather
 * than waiting for the request's `error` event (a request still waiting in an agent's queue
 * and destroyed there never emits one on Node 24, which once froze every delivery). The agents
 * never queue at all: `maxSockets` is unbounded because the worker already bounds what is in
 * flight (per mode and per endpoint), so a request always gets a socket at once.
 */
export function createHttpTransport(): Transport & { close(): void } {
  // Idle keep-alive sockets are closed after a few seconds, so a receiver's connection limit
  // is not held by sockets nobody uses.
  const agentOptions = { keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, timeout: 5_000 };
  const agents = {
    live: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
    test: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
  };
  const send: Transport = (request) =>
    new Promise<SendResult>((resolve) => {
      const { url } = request.target;
      const secure = url.protocol === 'https:';
      const modeAgents = request.livemode ? agents.live : agents.test;
      let settled = false;
      let statusCode: number | null = null;
      let response: http.IncomingMessage | null = null;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const req = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? modeAgents.https : modeAgents.http,
        headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
        lookup: pinnedLookup(request.target.addresses),
      });
      const timer = setTimeout(() => {
        // Settle first: whatever the socket does next cannot keep the attempt open.
        finish({ statusCode, error: 'timeout' });
        response?.destroy();
        req.destroy();
      }, request.timeoutMs);
      req.on('response', (res) => {
        response = res;
        statusCode = res.statusCode ?? null;
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > MAX_DRAIN_BYTES) {
            // Enough read to know the receiver answered; the rest is not ours to wait for.
            finish({ statusCode, error: null });
            res.destroy();
          }
        });
        res.on('end', () => finish({ statusCode, error: null }));
        res.on('error', () => finish({ statusCode, error: 'connection_reset' }));
        res.on('close', () => finish({ statusCode, error: 'connection_reset' }));
      });
      req.on('error', (err) => finish({ statusCode, error: classifyNetworkError(err) }));
      // A request closed without a response or an error (destroyed elsewhere) still settles.
      req.on('close', () => {
        if (response === null) finish({ statusCode: null, error: 'connection_reset' });
      });
      req.end(request.body);
    });
  return Object.assign(send, {
    close() {
      for (const mode of Object.values(agents)) {
        mode.http.destroy();
        mode.https.destroy();
      }
    },
  });
}

/**
 * A transport over a `fetch` implementation (tests, or a platform fetch). It connects to the
 * URL by name, so only the pre-delivery check guards it, not the connection itself.
 */
export function fetchTransport(fetchImpl: typeof fetch): Transport {
  return async (request) => {
    try {
      const response = await fetchImpl(request.target.url.href, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(request.timeoutMs),
      });
      // The deadline covers the body too: read it (up to the drain limit) under the signal.
      const reader = response.body?.getReader();
      let seen = 0;
      while (reader && seen <= MAX_DRAIN_BYTES) {
        const { done, value } = await reader.read();
        if (done) break;
        seen += value.byteLength;
      }
      await reader?.cancel().catch(() => {});
      return { statusCode: response.status, error: null };
    } catch (err) {
      return { statusCode: null, error: classifyNetworkError(err) };
    }
  };
}
