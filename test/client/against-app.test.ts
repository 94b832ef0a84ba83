/**
 * The generated client driving the real service in memory: `buildApp()` answers through
 * `app.inject()`, wrapped as the client's injected `fetch`, on SQLite in memory. Written for
 * 2026-11-01, it drives the client generated from 2026-11-01 (which pins and sends that
 * version); `test/versions/` drives the latest one.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  createPatientCareClient,
  type PatientCareClient,
} from '../../generated/versions/2026-11-01/client.js';
import { buildApp } from '../../server/app.js';
import { openDb } from '../../server/db/open.js';
import type { Db } from '../../server/db/types.js';
import { ensureInitialTestKey } from '../../server/keys/index.js';

let db: Db;
let app: FastifyInstance;
let client: PatientCareClient;

/** `fetch` over `app.inject()`: no socket, same HTTP semantics. */
function injectFetch(target: FastifyInstance) {
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const reply = await target.inject({
      method: request.method as 'GET',
      url: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      ...(body ? { payload: body } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(reply.headers)) {
      if (value !== undefined)
        headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
    }
    const empty = reply.statusCode === 204 || reply.rawPayload.length === 0;
    return new Response(empty ? null : reply.rawPayload, { status: reply.statusCode, headers });
  };
}

beforeAll(async () => {
  db = await openDb('sqlite::memory:');
  const apiKey = await ensureInitialTestKey(db);
  if (!apiKey) throw new Error('no initial test key');
  app = await buildApp({ db });
  client = createPatientCareClient({
    apiKey,
    baseUrl: 'http://127.0.0.1:4010',
    fetch: injectFetch(app),
  });
});

afterAll(async () => {
  await app?.close();
  await db?.close();
});

test('create, retrieve, and a 404 narrowed to the error envelope', async () => {
  const created = await client.createPatient({
    body: { name: { family: 'Rivera', given: ['Ana'] } },
  });
  expect(created.error).toBeUndefined();
  expect(created.status).toBe(200);
  const id = created.data?.id ?? '';
  expect(id).toMatch(/^pat_[0-9A-HJKMNP-TV-Z]{26}$/);
  expect(created.response.headers.get('PatientCare-Version')).toBe('2026-11-01');

  const got = await client.retrievePatient({ params: { path: { id } } });
  expect(got.data?.name.family).toBe('Rivera');

  const missing = await client.retrievePatient({
    params: { path: { id: 'pat_00000000000000000000000000' } },
  });
  if (missing.status !== 404) throw new Error(`expected 404, got ${missing.status}`);
  expect(missing.error.error.code).toBe('resource_missing');
});

test('a repeated Idempotency-Key replays the first response', async () => {
  const headers = { 'Idempotency-Key': 'client-test-replay-1' };
  const first = await client.createPatient({ body: { name: { family: 'Once' } }, headers });
  const second = await client.createPatient({ body: { name: { family: 'Once' } }, headers });
  expect(second.data?.id).toBe(first.data?.id);
  expect(second.response.headers.get('Idempotent-Replayed')).toBe('true');
});

test('.all() walks every page of the list', async () => {
  for (let i = 0; i < 5; i++)
    await client.createPatient({ body: { name: { family: `Page${i}` } } });
  const { data } = await client.listPatients({ params: { query: { limit: 100 } } });
  const ids: string[] = [];
  for await (const patient of client.listPatients.all({ params: { query: { limit: 2 } } }))
    ids.push(patient.id);
  expect(ids).toEqual(data?.data.map((p) => p.id));
  expect(ids.length).toBeGreaterThanOrEqual(6);
});
