/**
 * Refusals under `/fhir/R4` made before routing (the HTTP parser's, timeouts) and by the body
 * limit: each an OperationOutcome in `application/fhir+json` with its status, never the `/v1`
 * envelope. Sent as raw bytes over a real socket, since no HTTP client writes these requests.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { openDb } from '../../server/db/open.js';
import type { Db } from '../../server/db/types.js';
import { type RawAnswer, rawExchange } from '../http/support/raw-http.js';
import { makeKey } from '../support/keys.js';

let app: FastifyInstance;
let db: Db;
let port: number;
let secret: string;
const HOST = 'Host: 127.0.0.1\r\n';

beforeAll(async () => {
  db = await openDb('sqlite::memory:');
  secret = (await makeKey(db)).secret;
  app = await buildApp({ db, config: { headersTimeoutMs: 400, requestTimeoutMs: 800 } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await app.close();
  await db.close();
});

function expectOutcome(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
  expect(answer.headers['request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error' }] });
  expect(body.error).toBeUndefined();
  expect(JSON.stringify(body)).toContain(`"code":"${code}"`);
}

it('a 20 KB query → 431 OperationOutcome, the values not echoed', async () => {
  const answer = await rawExchange(port, [
    `GET /fhir/R4/Patient?family=Doe${'x'.repeat(20_000)} HTTP/1.1\r\n${HOST}\r\n`,
  ]);
  expectOutcome(answer, 431, 'too-costly');
  expect(answer.body).not.toContain('Doe');
});

it('Content-Length with Transfer-Encoding → 400 OperationOutcome; /v1 keeps its envelope', async () => {
  const raw = (path: string) =>
    `POST ${path} HTTP/1.1\r\n${HOST}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`;
  expectOutcome(await rawExchange(port, [raw('/fhir/R4/Patient')]), 400, 'invalid');
  const v1 = await rawExchange(port, [raw('/v1/patients')]);
  expect(v1.status).toBe(400);
  expect(JSON.parse(v1.body).error.code).toBe('request_malformed');
});

it('a body that stops half way → 408 OperationOutcome', async () => {
  const answer = await rawExchange(port, [
    `POST /fhir/R4/Patient HTTP/1.1\r\n${HOST}Authorization: Bearer ${secret}\r\nContent-Type: application/fhir+json\r\nContent-Length: 100\r\n\r\n{"resourceType":`,
  ]);
  expectOutcome(answer, 408, 'exception');
});

it('a declared body over 1 MiB → 413 OperationOutcome', async () => {
  const answer = await rawExchange(port, [
    `POST /fhir/R4/Patient/_search HTTP/1.1\r\n${HOST}Authorization: Bearer ${secret}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 2000000\r\nConnection: close\r\n\r\nfamily=`,
  ]);
  expectOutcome(answer, 413, 'too-costly');
});
