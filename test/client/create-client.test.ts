import { describe, expect, test } from 'vitest';
import { createOperationClient } from '../../client/index.js';
import { apiVersion, createPatientCareClient, operations } from '../fixtures/client/out/client.js';
import { envelope, json, patient, scriptedFetch, testClient } from './helpers.js';

describe('requests', () => {
  test('sends Bearer auth and the generated PatientCare-Version', async () => {
    const { client, sent } = testClient([json(200, patient(1))]);
    await client.retrievePatient({ params: { path: { id: patient(1).id } } });
    expect(sent[0]?.headers.get('Authorization')).toBe('Bearer sk_test_123');
    expect(sent[0]?.headers.get('PatientCare-Version')).toBe('2026-11-01');
    expect(apiVersion).toBe('2026-11-01');
  });

  test('version can be chosen or left out', async () => {
    const chosen = testClient([json(200, patient(1))], { version: '2027-01-01' });
    await chosen.client.retrievePatient({ params: { path: { id: 'pat_x' } } });
    expect(chosen.sent[0]?.headers.get('PatientCare-Version')).toBe('2027-01-01');
    const none = testClient([json(200, patient(1))], { version: null });
    await none.client.retrievePatient({ params: { path: { id: 'pat_x' } } });
    expect(none.sent[0]?.headers.has('PatientCare-Version')).toBe(false);
  });

  test("the version travels in the document's version header, or in none", async () => {
    const table = { ping: { method: 'get', path: '/ping', list: false } } as const;
    const send = async (versionHeader: string | null) => {
      const { fetch, sent } = scriptedFetch(json(200, {}));
      const client = createOperationClient<Record<string, never>, typeof table>(
        table,
        { apiKey: 'sk_test_1', baseUrl: 'http://127.0.0.1:1', fetch },
        { apiVersion: '2024-06-20', versionHeader },
      );
      await (client.ping as () => Promise<unknown>)();
      return sent[0]?.headers;
    };
    const stripe = await send('Stripe-Version');
    expect(stripe?.get('Stripe-Version')).toBe('2024-06-20');
    expect(stripe?.has('PatientCare-Version')).toBe(false);
    const none = await send(null);
    expect(none?.has('PatientCare-Version')).toBe(false);
    expect([...(none?.keys() ?? [])].some((name) => name.endsWith('-version'))).toBe(false);
  });

  test('each method calls its own method and path, with query and path parameters', async () => {
    const { client, sent } = testClient([
      json(200, { object: 'list', url: '/v1/patients', has_more: false, data: [] }),
    ]);
    await client.listPatients({ params: { query: { limit: 5, created: { gt: 10 } } } });
    await client.retrievePatient({ params: { path: { id: 'pat_A' } } });
    await client.deleteWebhook({ params: { path: { id: 'wh_B' } } });
    expect(sent.map((r) => `${r.method} ${r.url.pathname}${r.url.search}`)).toEqual([
      'GET /v1/patients?limit=5&created[gt]=10',
      'GET /v1/patients/pat_A',
      'DELETE /v1/webhooks/wh_B',
    ]);
  });

  test('defaults to the first server of the document', async () => {
    const { fetch, sent } = scriptedFetch(json(200, { ok: true }));
    const client = createPatientCareClient({ apiKey: 'sk_test_1', fetch });
    const { data } = await client.getV1Health();
    expect(data).toEqual({ ok: true });
    expect(sent[0]?.url.origin).toBe('https://api.patientcare.example');
  });

  test('raw client shares auth and headers', async () => {
    const { client, sent } = testClient([json(200, patient(2))]);
    const { data } = await client.raw.GET('/v1/patients/{id}', {
      params: { path: { id: 'pat_2' } },
    });
    expect(data?.id).toBe(patient(2).id);
    expect(sent[0]?.headers.get('Authorization')).toBe('Bearer sk_test_123');
  });
});

describe('results', () => {
  test('success: data, no error, status and response', async () => {
    const { client } = testClient([json(200, patient(3))]);
    const result = await client.retrievePatient({ params: { path: { id: 'pat_3' } } });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(200);
    expect(result.response.status).toBe(200);
    expect(result.data?.id).toBe(patient(3).id);
  });

  test('error: the envelope, narrowable by status, not thrown', async () => {
    const { client } = testClient([
      json(404, envelope('invalid_request_error', 'resource_missing')),
    ]);
    const result = await client.retrievePatient({ params: { path: { id: 'pat_4' } } });
    expect(result.data).toBeUndefined();
    if (result.status !== 404) throw new Error(`expected 404, got ${result.status}`);
    expect(result.error.error.code).toBe('resource_missing');
  });

  test('204 has no data and no error', async () => {
    const { client } = testClient([new Response(null, { status: 204 })]);
    const result = await client.deleteWebhook({ params: { path: { id: 'wh_1' } } });
    expect(result).toMatchObject({ status: 204, data: undefined, error: undefined });
  });
});

describe('misuse throws TypeError', () => {
  test.each([
    ['no apiKey', { apiKey: '' }],
    ['apiKey with whitespace', { apiKey: 'sk_test_1 x' }],
    ['negative maxRetries', { apiKey: 'sk_test_1', maxRetries: -1 }],
    ['fractional maxRetries', { apiKey: 'sk_test_1', maxRetries: 1.5 }],
    ['fetch not a function', { apiKey: 'sk_test_1', fetch: 'nope' }],
  ])('%s', (_name, options) => {
    expect(() => createPatientCareClient(options as never)).toThrow(TypeError);
  });

  test('no baseUrl when the document names no server', () => {
    expect(() => createOperationClient(operations, { apiKey: 'sk_test_1' })).toThrow(/baseUrl/);
  });
});
