import { expect, test } from 'vitest';
import { json, patient, testClient } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const body = { name: { family: 'F' } };

test('every POST gets a random Idempotency-Key; GET and DELETE none', async () => {
  const { client, sent } = testClient([json(200, patient(1))]);
  await client.createPatient({ body });
  await client.createPatient({ body });
  await client.retrievePatient({ params: { path: { id: 'pat_1' } } });
  const [first, second, get] = sent.map((r) => r.headers.get('Idempotency-Key'));
  expect(first).toMatch(UUID);
  expect(second).toMatch(UUID);
  expect(second).not.toBe(first);
  expect(get).toBeNull();
});

test('the key and body are identical across retries', async () => {
  const { client, sent } = testClient([
    json(500, { error: { type: 'api_error', code: 'internal' } }),
    new Error('socket hang up'),
    json(200, patient(1)),
  ]);
  const { data } = await client.createPatient({ body });
  expect(data?.id).toBe(patient(1).id);
  expect(sent).toHaveLength(3);
  const keys = new Set(sent.map((r) => r.headers.get('Idempotency-Key')));
  expect(keys.size).toBe(1);
  expect([...keys][0]).toMatch(UUID);
  expect(new Set(sent.map((r) => r.body))).toEqual(new Set([JSON.stringify(body)]));
});

test('a key given by the caller is kept, as a header parameter or a header', async () => {
  const { client, sent } = testClient([json(200, patient(1))]);
  await client.createPatient({ body, params: { header: { 'Idempotency-Key': 'given-1' } } });
  await client.createPatient({ body, headers: { 'Idempotency-Key': 'given-2' } });
  expect(sent.map((r) => r.headers.get('Idempotency-Key'))).toEqual(['given-1', 'given-2']);
});

test('the raw client and a custom generator are covered too', async () => {
  let n = 0;
  const { client, sent } = testClient([json(200, patient(1))], {
    generateIdempotencyKey: () => `key-${++n}`,
  });
  await client.raw.POST('/v1/patients', { body });
  await client.updatePatient({ params: { path: { id: 'pat_1' } }, body: { active: false } });
  expect(sent.map((r) => r.headers.get('Idempotency-Key'))).toEqual(['key-1', 'key-2']);
});
