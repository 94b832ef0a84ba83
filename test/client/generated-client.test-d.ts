/**
 * Type tests against the real `generated/client.ts` (our spec): what the generic fixture tests
 * show, on the shapes users call. Wrong paths, parameters and bodies do not compile.
 */
import type { Readable } from 'openapi-typescript-helpers';
import { describe, expectTypeOf, test } from 'vitest';
import { createPatientCareClient } from '../../generated/client.js';
import type { components } from '../../generated/types.js';

type Schemas = components['schemas'];
const client = createPatientCareClient({ apiKey: 'sk_test_1' });
const id = 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W';

describe('Patient-Care client', () => {
  test('patients', async () => {
    const list = await client.listPatients({
      params: { query: { limit: 5, created: { gte: 1 } } },
    });
    if (!list.error) expectTypeOf(list.data.data).toEqualTypeOf<Readable<Schemas['Patient']>[]>();
    for await (const patient of client.listPatients.all({ params: { query: { active: true } } })) {
      expectTypeOf(patient).toEqualTypeOf<Readable<Schemas['Patient']>>();
    }
    void client.createPatient({ body: { name: { family: 'F' } } });
    void client.createPatient({ body: { token: 'tok_1' } });
    void client.searchPatients({ body: { family_name: 'F' } });
    // @ts-expect-error name is required without a token
    void client.createPatient({ body: { birth_date: '2000-01-01' } });
    // @ts-expect-error PHI lookups are not query parameters of the list
    void client.listPatients({ params: { query: { family_name: 'F' } } });
    // @ts-expect-error the id is a path parameter
    void client.retrievePatient({ params: { query: { id } } });
  });

  test('errors are the envelope, narrowed by status', async () => {
    const { status, error } = await client.retrievePatient({ params: { path: { id } } });
    if (status === 404) expectTypeOf(error).toEqualTypeOf<Readable<Schemas['Error']>>();
    if (error) expectTypeOf(error.error.request_id).toBeString();
  });

  test('appointments: writeOnly confirm is accepted in bodies', () => {
    void client.createAppointment({ body: { patient: id, practitioner: 'dr', confirm: true } });
    // @ts-expect-error practitioner is required
    void client.createAppointment({ body: { patient: id } });
  });

  test('raw client', () => {
    void client.raw.GET('/v1/claims/{id}', { params: { path: { id: 'clm_1' } } });
    // @ts-expect-error claims cannot be deleted
    void client.raw.DELETE('/v1/claims/{id}', { params: { path: { id: 'clm_1' } } });
  });
});
