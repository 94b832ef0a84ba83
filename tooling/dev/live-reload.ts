/**
 * The docs pages' live reload, served by the dev host beside the API (never by the app, so a
 * page's open event stream does not keep a retired contract's app from closing):
 * `/docs/dev/events`, a server-sent event stream of the served contract's id and the spec's
 * current problem, and `/docs/dev/live-reload.js`, the page script that reloads on a new id and
 * shows the problem as a banner. Same origin, so the docs CSP (`script-src 'self'`,
 * `connect-src 'self'`) allows both unchanged.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { securityHeaders } from '../../server/docs/security-headers.js';
import type { ProblemPayload } from './messages.js';

export const LIVE_RELOAD_SCRIPT_URL = '/docs/dev/live-reload.js';
export const LIVE_RELOAD_EVENTS_URL = '/docs/dev/events';
// Comments keep idle streams open through proxies that drop silent connections.
const HEARTBEAT_MS = 15_000;
// How soon a page reconnects after the service restarted on a code change.
const RETRY_MS = 500;

/**
 * The script's URL in the pages of one contract's app (`null`: the app served before any good
 * contract). The page learns from it which contract it was rendered from, so a page whose
 * event stream opens after a newer contract was swapped in still sees that it is stale.
 */
export function liveReloadScript(contract: string | null): string {
  return `${LIVE_RELOAD_SCRIPT_URL}?contract=${encodeURIComponent(contract ?? '')}`;
}

/** What every open page is told. */
export interface LiveState {
  contract: string | null;
  problem: ProblemPayload | null;
}

export class LiveReload {
  private readonly clients = new Set<ServerResponse>();
  private readonly script = readFileSync(new URL('./public/live-reload.js', import.meta.url));
  private readonly heartbeat: NodeJS.Timeout;
  private state: LiveState = { contract: null, problem: null };

  constructor() {
    this.heartbeat = setInterval(() => {
      for (const client of this.clients) client.write(': keep-alive\n\n');
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Answers the two live-reload URLs; false for every other request. */
  handles(request: IncomingMessage, response: ServerResponse): boolean {
    const path = (request.url ?? '').split('?')[0];
    if (path !== LIVE_RELOAD_EVENTS_URL && path !== LIVE_RELOAD_SCRIPT_URL) return false;
    for (const [name, value] of Object.entries(securityHeaders)) response.setHeader(name, value);
    if (request.method !== 'GET') {
      response.writeHead(405, { allow: 'GET' }).end();
    } else if (path === LIVE_RELOAD_SCRIPT_URL) {
      response
        .writeHead(200, {
          'content-type': 'text/javascript; charset=utf-8',
          'cache-control': 'no-cache',
        })
        .end(this.script);
    } else {
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      response.write(`retry: ${RETRY_MS}\n\n`);
      response.write(this.event());
      this.clients.add(response);
      response.once('close', () => this.clients.delete(response));
    }
    return true;
  }

  /** Updates the state and tells every open page. */
  publish(change: Partial<LiveState>): void {
    this.state = { ...this.state, ...change };
    const event = this.event();
    for (const client of this.clients) client.write(event);
  }

  /** Ends every stream (the service is stopping). */
  close(): void {
    clearInterval(this.heartbeat);
    for (const client of this.clients) client.end();
    this.clients.clear();
  }

  private event(): string {
    return `event: state\ndata: ${JSON.stringify(this.state)}\n\n`;
  }
}
