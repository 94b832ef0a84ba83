/**
 * A loopback receiver that answers `200` headers and a first chunk, then never ends the body:
 * the receiver that once stalled every delivery. It counts open sockets (now and at most) so
 * tests can see the worker release them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HangingReceiver {
  url(path: string): string;
  /** Requests whose headers arrived, per path. */
  readonly hits: Map<string, number>;
  /** Sockets open now. */
  readonly open: number;
  /** The most sockets open at once. */
  readonly maxOpen: number;
  /** Connections accepted in all. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startHangingReceiver(): Promise<HangingReceiver> {
  let open = 0;
  let maxOpen = 0;
  let connections = 0;
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    req.resume();
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('still thinking');
  });
  // Node's own request timeouts would close the socket for us; this receiver never does.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  server.on('connection', (socket) => {
    open += 1;
    connections += 1;
    maxOpen = Math.max(maxOpen, open);
    socket.on('close', () => {
      open -= 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits,
    get open() {
      return open;
    },
    get maxOpen() {
      return maxOpen;
    },
    get connections() {
      return connections;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
