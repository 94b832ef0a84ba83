/**
 * HTTP/1.1 over a raw socket, for requests no HTTP client would send (malformed framing,
 * bodies sent slowly) and for timing when the server closes the connection.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the first byte sent until the server closed the connection. */
  closedAfterMs: number;
}

/**
 * Connects to 127.0.0.1:`port`, sends `chunks` (a number is a pause in ms) and reads until the
 * server closes the connection; fails if it is still open after `timeoutMs`.
 */
export function rawExchange(
  port: number,
  chunks: ReadonlyArray<string | number>,
  timeoutMs = 10_000,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connection still open after ${timeoutMs} ms; got: ${received}`));
    }, timeoutMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(guard);
      const [head = '', body = ''] = received.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({
        status: Number(statusLine.split(' ')[1] ?? 0),
        headers,
        body,
        closedAfterMs: Date.now() - started,
      });
    });
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        if (typeof chunk === 'number') await new Promise((r) => setTimeout(r, chunk));
        else socket.write(chunk);
      }
    });
  });
}
