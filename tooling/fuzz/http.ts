/**
 * Sending a fuzz request over real HTTP (Node's fetch) and reading the answer as the response
 * checker wants it; plus the curl command that sends the same request again.
 */
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';

/** A request ready to send. */
export interface WireRequest {
  method: string;
  /** Path and query, e.g. `/v1/patients?limit=2`. */
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** What came back. */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed JSON, or undefined for an empty body; `parseError` when the body is not JSON. */
  body: unknown;
  parseError?: string;
}

/** Bodies above this size go over a plain socket (see `sendRaw`). */
export const RAW_ABOVE = 64 * 1024;

function parseBody(text: string): { body: unknown; parseError?: string } {
  if (text === '') return { body: undefined };
  try {
    return { body: JSON.parse(text) };
  } catch (error) {
    return { body: undefined, parseError: (error as Error).message };
  }
}

/**
 * Writes `payload` in 64 KiB pieces, yielding to the event loop between them, and stops once
 * the service has begun to answer (as curl does): the answer is read before the service,
 * having refused the rest, resets the connection and the kernel drops unread bytes.
 */
async function writeUntilAnswered(
  socket: Socket,
  payload: Buffer,
  answered: () => boolean,
): Promise<void> {
  const piece = 64 * 1024;
  for (let at = 0; at < payload.length && !answered() && !socket.destroyed; at += piece) {
    const more = socket.write(payload.subarray(at, at + piece));
    await new Promise<void>((resolve) => {
      if (more) setImmediate(resolve);
      else socket.once('drain', resolve);
    });
  }
  if (!socket.destroyed && !answered()) socket.end();
}

/**
 * A large body over a plain socket, as curl sends one: `Expect: 100-continue`, and the body
 * only after the interim `100 Continue` and a short wait. A service that refuses the size
 * answers 413 at once and closes; body bytes it never read make its kernel reset the
 * connection, and a reset can drop the answer before the client reads it (seen here for
 * about 1 in 15 huge bodies when the body was sent at once). The answer is everything after
 * the last head (HTTP/1.1 with `Connection: close`).
 */
function sendRaw(target: URL, request: WireRequest, payload: Buffer): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    let raw = '';
    let bodySent = false;
    socket.setTimeout(30_000, () => socket.destroy(new Error('no answer within 30 s')));
    socket.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8');
      const interim = /^HTTP\/1\.1 100 [^\r]*\r\n\r\n/.exec(raw);
      if (interim !== null) {
        raw = raw.slice(interim[0].length);
        // Node sends `100 Continue` by itself, before the service has looked at the request;
        // a service refusing the declared size answers within moments, so give it that.
        if (!bodySent) {
          setTimeout(() => void writeUntilAnswered(socket, payload, () => raw.length > 0), 150);
        }
        bodySent = true;
      }
    });
    // A write after the service closed fails with EPIPE or ECONNRESET: its answer still counts.
    socket.on('error', () => {});
    socket.on('close', () => {
      const split = raw.indexOf('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(raw);
      if (split < 0 || status === null) {
        reject(new Error(`connection closed without an HTTP answer (${raw.length} bytes)`));
        return;
      }
      const headers: Record<string, string> = {};
      for (const line of raw.slice(0, split).split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const text = raw.slice(split + 4);
      resolve({ status: Number(status[1]), headers, text, ...parseBody(text) });
    });
    const head = [`${request.method} ${request.url} HTTP/1.1`, `Host: ${target.host}`];
    for (const [name, value] of Object.entries(request.headers)) head.push(`${name}: ${value}`);
    head.push(`Content-Length: ${payload.length}`, 'Expect: 100-continue', 'Connection: close');
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
  });
}

/**
 * Sends `request` to `baseUrl` with `node:http` rather than fetch: a server may answer a body
 * over its limit (413) and close the connection before the body is written, and fetch then
 * reports only the broken pipe; here the answer that arrived still counts.
 */
export function send(baseUrl: string, request: WireRequest): Promise<WireResponse> {
  const target = new URL(`${baseUrl}${request.url}`);
  const payload = request.body === undefined ? undefined : Buffer.from(request.body);
  if (payload !== undefined && payload.length > RAW_ABOVE) return sendRaw(target, request, payload);
  const headers: Record<string, string | number> = { ...request.headers };
  if (payload !== undefined) headers['Content-Length'] = payload.length;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        // Path and query exactly as built: the cases encode them on purpose.
        path: request.url,
        headers,
        timeout: 30_000,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const out: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          let body: unknown;
          let parseError: string | undefined;
          if (text !== '') {
            try {
              body = JSON.parse(text);
            } catch (error) {
              parseError = (error as Error).message;
            }
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: out,
            text,
            body,
            ...(parseError ? { parseError } : {}),
          });
        });
      },
    );
    // A refused body can break the pipe after the answer is complete, when the request no
    // longer listens: the socket's late error is expected then, not a failure of the run.
    req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', (error) => {
      // EPIPE/ECONNRESET after the answer began: the server stopped reading a refused body.
      if (!answered) reject(error);
    });
    req.end(payload);
  });
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * A curl command for `request`. Bodies over 2 KB, or not printable, are written to a file in
 * `dir` and sent with `--data-binary @file`, so the command stays readable.
 */
export function curlCommand(
  baseUrl: string,
  request: WireRequest,
  dir: string,
  name: string,
): string {
  const parts = ['curl', '-sS', '-i', '-X', request.method, quote(`${baseUrl}${request.url}`)];
  for (const [header, value] of Object.entries(request.headers)) {
    parts.push('-H', quote(`${header}: ${value}`));
  }
  if (request.body !== undefined) {
    const text = typeof request.body === 'string' ? request.body : undefined;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what makes a body unprintable here.
    if (text !== undefined && text.length <= 2048 && !/[\u0000-\u001f]/.test(text)) {
      parts.push('--data-binary', quote(text));
    } else {
      const file = join(dir, `${name}.body`);
      writeFileSync(file, request.body);
      parts.push('--data-binary', quote(`@${file}`));
    }
  }
  return parts.join(' ');
}
