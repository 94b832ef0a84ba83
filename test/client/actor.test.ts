/**
 * `createClient({ actor })` and a call's own `PatientCare-Actor` (issue 43), against the real
 * generated client (the header is a parameter of every keyed operation of our spec), with an
 * injected fetch.
 */
import { describe, expect, test } from 'vitest';
import { createPatientCareClient } from '../../generated/client.js';
import { json, scriptedFetch } from './helpers.js';

const PATIENT = 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W';
const list = { object: 'list', url: '/v1/patients', has_more: false, data: [] };

function client(actor?: string) {
  const { fetch, sent } = scriptedFetch(json(200, list));
  const made = createPatientCareClient({
    apiKey: 'sk_test_1',
    baseUrl: 'http://127.0.0.1:1',
    fetch,
    ...(actor === undefined ? {} : { actor }),
  });
  return { client: made, sent };
}

describe('the actor option', () => {
  test('is sent as PatientCare-Actor on every request', async () => {
    const { client: c, sent } = client('clinician:4711');
    await c.listPatients();
    await c.retrievePatient({ params: { path: { id: PATIENT } } });
    expect(sent.map((r) => r.headers.get('PatientCare-Actor'))).toEqual([
      'clinician:4711',
      'clinician:4711',
    ]);
  });

  test('one call names another actor through its typed header parameter', async () => {
    const { client: c, sent } = client('clinician:4711');
    await c.listPatients({ params: { header: { 'PatientCare-Actor': 'job:nightly' } } });
    await c.listPatients();
    expect(sent.map((r) => r.headers.get('PatientCare-Actor'))).toEqual([
      'job:nightly',
      'clinician:4711',
    ]);
  });

  test('without it no header is sent', async () => {
    const { client: c, sent } = client();
    await c.listPatients();
    expect(sent[0]?.headers.has('PatientCare-Actor')).toBe(false);
  });

  test.each([
    ['empty', ''],
    ['a name with a space', 'Ana Rivera'],
    ['65 characters', 'a'.repeat(65)],
  ])('a value out of form (%s) throws a TypeError without echoing it', (_, actor) => {
    expect(() => client(actor)).toThrow(TypeError);
    try {
      client(actor);
    } catch (err) {
      expect((err as Error).message).toMatch(/^actor must be/);
      if (actor !== '') expect((err as Error).message).not.toContain(actor);
    }
  });
});
