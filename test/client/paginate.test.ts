import { expect, test } from 'vitest';
import { ApiError } from '../../client/index.js';
import { envelope, json, patient, type SentRequest, testClient } from './helpers.js';

const page = (ids: number[], hasMore: boolean) =>
  json(200, { object: 'list', url: '/v1/patients', has_more: hasMore, data: ids.map(patient) });

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

test('walks three pages with starting_after = last id, keeping the caller query', async () => {
  const { client, sent } = testClient([
    page([9, 8, 7], true),
    page([6, 5, 4], true),
    page([3, 2], false),
  ]);
  const all = await collect(
    client.listPatients.all({ params: { query: { limit: 3, active: true } } }),
  );
  expect(all.map((p) => p.id)).toEqual([9, 8, 7, 6, 5, 4, 3, 2].map((n) => patient(n).id));
  expect(sent.map((r) => Object.fromEntries(r.url.searchParams))).toEqual([
    { limit: '3', active: 'true' },
    { limit: '3', active: 'true', starting_after: patient(7).id },
    { limit: '3', active: 'true', starting_after: patient(4).id },
  ]);
});

test('with ending_before the walk goes the other way, from the first id of each page', async () => {
  const { client, sent } = testClient([page([5, 4], true), page([7, 6], false)]);
  const all = await collect(
    client.listPatients.all({ params: { query: { ending_before: patient(3).id } } }),
  );
  expect(all).toHaveLength(4);
  expect(sent.map((r) => r.url.searchParams.get('ending_before'))).toEqual([
    patient(3).id,
    patient(5).id,
  ]);
});

test('a body cursor (POST search) goes into the body, each page with its own key', async () => {
  const { client, sent } = testClient([page([3], true), page([2], false)]);
  const all = await collect(client.searchPatients.all({ body: { family_name: 'F', limit: 1 } }));
  expect(all).toHaveLength(2);
  const bodies = sent.map((r: SentRequest) => JSON.parse(r.body));
  expect(bodies).toEqual([
    { family_name: 'F', limit: 1 },
    { family_name: 'F', limit: 1, starting_after: patient(3).id },
  ]);
  expect(new Set(sent.map((r) => r.headers.get('Idempotency-Key'))).size).toBe(2);
});

test('a failing page throws ApiError with status and envelope', async () => {
  const { client } = testClient([
    page([2], true),
    json(401, envelope('authentication_error', 'api_key_expired')),
  ]);
  const error = await collect(client.listPatients.all()).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).status).toBe(401);
  expect((error as ApiError).message).toBe(
    'API request failed with status 401 (authentication_error api_key_expired)',
  );
});

test('stops on an empty page even if has_more is true (no endless loop)', async () => {
  const { client, sent } = testClient([page([], true)]);
  expect(await collect(client.listPatients.all())).toEqual([]);
  expect(sent).toHaveLength(1);
});

test('only list operations with a cursor have .all()', () => {
  const { client } = testClient([]);
  expect(typeof client.listPatients.all).toBe('function');
  expect('all' in client.retrievePatient).toBe(false);
});
