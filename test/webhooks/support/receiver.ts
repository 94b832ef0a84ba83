/**
 * A webhook receiver on 127.0.0.1 for tests and the benchmark: verifies every delivery with
 * the client's `verifyWebhook`, remembers what arrived, answers with a chosen status, and can
 * go down (socket closed: connection refused) and come back on the same port.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, type WebhookErrorCode } from '../../../client/webhook.js';

export interface Received {
  /** Which endpoint path got it (`/a`, `/b`, …). */
  path: string;
  eventId: string | null;
  type: string | null;
  verified: boolean;
  error: WebhookErrorCode | null;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** `performance.timeOrigin + performance.now()` at arrival (ms, sub-ms precision). */
  at: number;
}

export interface Receiver {
  readonly port: number;
  url(path: string): string;
  readonly received: Received[];
  /** Secret per path used for verification. */
  secrets: Map<string, string>;
  /** Status to answer per path (default 200). */
  status: (path: string) => number;
  /** How long to wait before answering (ms, default 0). */
  delayMs: number;
  onReceive?: (item: Received) => void;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** What the receiver answers with: tests check it is never stored. */
export const RESPONSE_BODY = 'receiver-said-this';

/** Starts a receiver on an ephemeral port of 127.0.0.1. */
export async function startReceiver(): Promise<Receiver> {
  let server: Server | null = null;
  let port = 0;
  const receiver: Receiver = {
    get port() {
      return port;
    },
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received: [],
    secrets: new Map(),
    status: () => 200,
    delayMs: 0,
    down: async () => {
      const s = server;
      server = null;
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    up: async () => {
      if (server) return;
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const rawBody = Buffer.concat(chunks).toString('utf8');
          const path = req.url ?? '/';
          const secret = receiver.secrets.get(path) ?? 'whsec_missing';
          const header = req.headers['patientcare-signature'];
          const result = verifyWebhook(rawBody, Array.isArray(header) ? header[0] : header, secret);
          let parsed: { id?: string; type?: string } = {};
          try {
            parsed = JSON.parse(rawBody) as typeof parsed;
          } catch {}
          const item: Received = {
            path,
            eventId: parsed.id ?? null,
            type: parsed.type ?? null,
            verified: result.error === undefined,
            error: result.error?.code ?? null,
            headers: req.headers,
            rawBody,
            at: performance.timeOrigin + performance.now(),
          };
          receiver.received.push(item);
          receiver.onReceive?.(item);
          res.statusCode = receiver.status(path);
          if (receiver.delayMs > 0)
            setTimeout(() => res.end(RESPONSE_BODY), receiver.delayMs).unref();
          else res.end(RESPONSE_BODY);
        });
      });
      server.keepAliveTimeout = 30_000;
      const s = server;
      await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', () => resolve()));
      port = (s.address() as AddressInfo).port;
    },
    close: async () => receiver.down(),
  };
  await receiver.up();
  return receiver;
}

/** Polls `check` every 20 ms until it is true; fails after `timeoutMs` (a bound, not a speed test). */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
