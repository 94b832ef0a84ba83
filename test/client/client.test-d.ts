/**
 * Type tests: a wrong path, parameter or body does not compile, results narrow by status, and
 * list methods yield the list's item type. Checked by `vitest --typecheck` (and `tsc`).
 */
import type { Readable } from 'openapi-typescript-helpers';
import { describe, expectTypeOf, test } from 'vitest';
import { createPatientCareClient } from '../fixtures/client/out/client.js';
import type { components } from '../fixtures/client/out/types.js';

type ErrorEnvelope = components['schemas']['Error'];
const client = createPatientCareClient({ apiKey: 'sk_test_1', baseUrl: 'http://127.0.0.1:4010' });
const id = 'pat_01';

describe('requests', () => {
  test('good calls compile', () => {
    void client.listPatients();
    void client.listPatients({ params: { query: { limit: 5, created: { gt: 1 } } } });
    void client.retrievePatient({ params: { path: { id } } });
    void client.createPatient({ body: { name: { family: 'F' } } });
    void client.createPatient({ body: { token: 'tok_1' } });
    void client.getV1Health();
    void client.raw.GET('/v1/patients/{id}', { params: { path: { id } } });
  });

  test('a wrong path or operation does not compile', () => {
    // @ts-expect-error no such path
    void client.raw.GET('/v1/patient');
    // @ts-expect-error no GET on the search path
    void client.raw.GET('/v1/patients/search');
    // @ts-expect-error no such operation
    void client.listPatient;
  });

  test('a wrong or missing parameter does not compile', () => {
    // @ts-expect-error limit is a number
    void client.listPatients({ params: { query: { limit: '5' } } });
    // @ts-expect-error misspelt query parameter
    void client.listPatients({ params: { query: { lmit: 5 } } });
    // @ts-expect-error the path parameter is required
    void client.retrievePatient();
    // @ts-expect-error the path parameter is required
    void client.retrievePatient({ params: { path: {} } });
    // @ts-expect-error wrong path parameter name
    void client.retrievePatient({ params: { path: { patient: id } } });
  });

  test('a wrong or missing body does not compile', () => {
    // @ts-expect-error the body is required
    void client.createPatient();
    // @ts-expect-error name is required
    void client.createPatient({ body: { birth_date: '2000-01-01' } });
    // @ts-expect-error family must be a string
    void client.createPatient({ body: { name: { family: 1 } } });
    void client.updatePatient({ params: { path: { id } }, body: { active: false } });
    // @ts-expect-error readOnly fields are not part of the request body
    void client.updatePatient({ params: { path: { id } }, body: { updated: 1 } });
    // @ts-expect-error misspelt body field
    void client.updatePatient({ params: { path: { id } }, body: { actve: false } });
    // @ts-expect-error search bodies are closed
    void client.searchPatients({ body: { family_nam: 'F' } });
  });
});

describe('results', () => {
  test('error narrows data away, and status narrows error', async () => {
    const result = await client.retrievePatient({ params: { path: { id } } });
    if (result.error) {
      expectTypeOf(result.data).toEqualTypeOf<undefined>();
      expectTypeOf(result.status).toEqualTypeOf<401 | 404>();
      expectTypeOf(result.error).toEqualTypeOf<ErrorEnvelope>();
    } else {
      expectTypeOf(result.status).toEqualTypeOf<200>();
      expectTypeOf(result.data.id).toBeString();
      expectTypeOf(result.data.name.family).toBeString();
      expectTypeOf(result.data).toEqualTypeOf<Readable<components['schemas']['Patient']>>();
    }
    const { status, error } = await client.createPatient({ body: { token: 'tok_1' } });
    if (status === 409) expectTypeOf(error).toEqualTypeOf<ErrorEnvelope>();
    // @ts-expect-error 404 is not documented for createPatient
    if (status === 404) void error;
  });

  test('204 has no data', async () => {
    const result = await client.deleteWebhook({ params: { path: { id: 'wh_1' } } });
    if (result.status === 204) expectTypeOf(result.data).toEqualTypeOf<undefined>();
  });

  test('list methods have .all() yielding the item type; others do not', () => {
    type Patient = Readable<components['schemas']['Patient']>;
    const items = client.listPatients.all({ params: { query: { limit: 100 } } });
    expectTypeOf(items).toEqualTypeOf<AsyncGenerator<Patient, void, undefined>>();
    expectTypeOf(client.searchPatients.all).parameter(0).toHaveProperty('body');
    // @ts-expect-error retrieve is not a list
    void client.retrievePatient.all;
    // @ts-expect-error .all() takes the list's own parameters
    void client.listPatients.all({ params: { query: { limit: 'x' } } });
  });
});
