/**
 * Patients the benches read: the same shape everywhere (a page of 10 is about 2.4 KB), created
 * through the API (every layer a real create passes) or, before a service exists, straight
 * through the repository.
 */
import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { openDb } from '../../server/db/open.js';
import { buildPatient } from '../../server/domain/patients.js';
import { newId } from '../../server/ids.js';
import { insertRecord } from '../../server/repos/records.js';
import { PATIENT } from '../../server/resources/patient.js';

/** Patient `i` of a bench: family `Bench<i>` (a FHIR `family=Bench` search finds them all). */
export function benchPatient(i: number) {
  return { name: { family: `Bench${i}`, given: ['Ada'] }, birth_date: '1980-01-02' };
}

/** POSTs `count` patients (`body(i)` each, fresh Idempotency-Keys); throws on anything but 200. */
export async function createPatients(
  base: string,
  secret: string,
  count: number,
  body: (i: number) => object = benchPatient,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${base}/v1/patients`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify(body(i)),
    });
    if (res.status !== 200) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
  }
}

/** What every create under load sends (a create is a new patient; this body is ~100 bytes). */
export const LOAD_PATIENT = JSON.stringify({
  name: { family: 'Loadtest', given: ['Ada'] },
  birth_date: '1980-01-02',
  email: 'ada@example.test',
});

/**
 * autocannon's `POST /v1/patients` with `LOAD_PATIENT` and a fresh Idempotency-Key per
 * request, so every POST is a new create, not a replay.
 */
export function createRequest(headers: Record<string, string>): autocannon.Request {
  return {
    method: 'POST',
    path: '/v1/patients',
    headers: { ...headers, 'content-type': 'application/json' },
    body: LOAD_PATIENT,
    setupRequest: (request) => ({
      ...request,
      headers: { ...request.headers, 'idempotency-key': randomUUID() },
    }),
  };
}

/** Inserts `count` bench patients into the database at `url` through the repository. */
export async function insertPatients(url: string, count: number): Promise<void> {
  const db = await openDb(url);
  try {
    const nowSeconds = Math.floor(Date.now() / 1000);
    for (let i = 0; i < count; i++) {
      const patient = buildPatient(benchPatient(i), {
        id: newId('pat'),
        livemode: false,
        nowSeconds,
      });
      await db.transaction((tx) => insertRecord(PATIENT, tx, patient));
    }
  } finally {
    await db.close();
  }
}
