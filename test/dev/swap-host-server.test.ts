/**
 * `npm run dev`'s own HTTP server (`tooling/dev/swap-host.ts`) applies the service's server
 * settings: the headers and request timeouts, keep-alive, and the envelope for what Node's
 * parser refuses, as `buildApp` gives Fastify's server (`server/http/node-server.ts`).
 */
import { connect } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createNodeServer } from '../../server/http/node-server.js';
import { SwapHost } from '../../tooling/dev/swap-host.js';

const SETTINGS = {
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  keepAliveTimeoutMs: 400,
  apiVersions: ['2026-11-01'],
};

let host: SwapHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

async function listening(): Promise<number> {
  host = new SwapHost(Promise.resolve({ contract: null, problem: null }), () => {});
  return host.listen({ host: '127.0.0.1', port: 0 }, SETTINGS);
}

/** Writes `raw` and reads until the server closes the connection. */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
  });
}

function parsed(text: string): { status: number; requestId: string | undefined; body: unknown } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...headers] = head.split('\r\n');
  const requestId = headers.find((h) => h.toLowerCase().startsWith('request-id:'));
  return {
    status: Number(statusLine.split(' ')[1]),
    requestId: requestId?.slice('request-id:'.length).trim(),
    body: JSON.parse(body),
  };
}

it('answers malformed framing (Content-Length with Transfer-Encoding) in the envelope', async () => {
  const port = await listening();
  const answer = parsed(
    await exchange(
      port,
      'POST /v1/patients HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ),
  );
  expect(answer.status).toBe(400);
  expect(answer.requestId).toMatch(/^req_/);
  expect(answer.body).toMatchObject({
    error: { code: 'request_malformed', request_id: answer.requestId },
  });
});

it('closes a request whose headers never finish with 408 after the headers timeout', async () => {
  const port = await listening();
  // Node's defaults (60 s headers timeout, checked every 30 s) would outlast the test's 5 s.
  const answer = parsed(await exchange(port, 'GET /v1/patients HTTP/1.1\r\nHost: x\r\n'));
  expect(answer.status).toBe(408);
  expect(answer.body).toMatchObject({ error: { code: 'request_timeout' } });
});

it('sets the configured timeouts on the server it creates', () => {
  const server = createNodeServer(
    SETTINGS,
    () => {},
    () => undefined,
  );
  expect(server.headersTimeout).toBe(300);
  expect(server.requestTimeout).toBe(600);
  expect(server.keepAliveTimeout).toBe(400);
});
