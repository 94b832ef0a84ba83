/**
 * Appointment times an earlier release stored out of today's range (any integer ≥ 0 was
 * accepted before 2026-11-01, so clients that sent milliseconds have rows like
 * `start: 1795747516000`): every read of them answers 200 in every version, valid by that
 * version's document (the injector checks each answer), with the time clamped to the last
 * instant RFC 3339 can write; an update corrects the row. The release-to-release walk over
 * real old builds is `releases.test.ts` (integration tier); this is its fast, in-process half.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFhirId } from '../../server/fhir/ids.js';
import { versions } from '../../server/versioning/index.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { makeKey } from '../support/keys.js';
import { storeTimes } from './support/stored-times.js';

const MAX = 253_402_300_799;

describe.each([
  ['milliseconds-style', 1_795_747_516_000, 1_795_749_316_000],
  ['past the range of Date', 9_000_000_000_000, 9_000_000_001_800],
])('an appointment stored with %s times', (_name, start, end) => {
  let t: TestApp;
  let secret: string;
  let id: string;
  let patient: string;

  beforeAll(async () => {
    t = await buildTestApp();
    secret = (await makeKey(t.db)).secret;
    const made = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: secret,
      body: { name: { family: 'Upgrade' } },
    });
    patient = made.body.id;
    const appointment = await t.request({
      method: 'POST',
      url: '/v1/appointments',
      key: secret,
      headers: { 'patientcare-version': '2026-11-01' },
      body: { patient, practitioner: 'Dr Old', start: 1795747516, end: 1795749316, confirm: true },
    });
    expect(appointment.status).toBe(200);
    id = appointment.body.id;
    await storeTimes(t.db, id, start, end);
  });
  afterAll(() => t.close());

  const get = (url: string, version: string) =>
    t.request({ method: 'GET', url, key: secret, headers: { 'patientcare-version': version } });

  it.each(versions.supported)('reads, lists and searches it in %s, clamped', async (version) => {
    const expected = version === '2026-11-01' ? MAX : '9999-12-31T23:59:59Z';
    const one = await get(`/v1/appointments/${id}`, version);
    expect(one.status).toBe(200);
    expect([one.body.start, one.body.end]).toEqual([expected, expected]);
    const list = await get(`/v1/appointments?patient=${patient}`, version);
    expect(list.status).toBe(200);
    expect(list.body.data.map((a: { start: unknown }) => a.start)).toEqual([expected]);
    const events = await get('/v1/events?type=appointment.created', version);
    expect(events.status).toBe(200);
    expect(events.body.data[0].data.object.start).toBe(expected);
    const event = await get(`/v1/events/${events.body.data[0].id}`, version);
    expect(event.status).toBe(200);
  });

  it('reads and searches it through FHIR, clamped', async () => {
    const read = await get(`/fhir/R4/Appointment/${toFhirId(id)}`, versions.latest);
    expect(read.status).toBe(200);
    expect(read.body.start).toBe('9999-12-31T23:59:59Z');
    const search = await get(`/fhir/R4/Appointment?patient=${toFhirId(patient)}`, versions.latest);
    expect(search.status).toBe(200);
    expect(search.body.entry[0].resource.end).toBe('9999-12-31T23:59:59Z');
  });

  it.each(versions.supported)('is corrected by an update in %s', async (version) => {
    const times =
      version === '2026-11-01'
        ? { start: 1795747516, end: 1795749316 }
        : { start: '2026-11-27T09:00:00Z', end: '2026-11-27T09:30:00Z' };
    await storeTimes(t.db, id, start, end);
    const updated = await t.request({
      method: 'POST',
      url: `/v1/appointments/${id}`,
      key: secret,
      headers: { 'patientcare-version': version },
      body: times,
    });
    expect(updated.status).toBe(200);
    expect([updated.body.start, updated.body.end]).toEqual([times.start, times.end]);
    // Its event's previous_attributes carry the old (clamped) value, valid in every version.
    const events = await get('/v1/events?type=appointment.updated&limit=1', version);
    expect(events.status).toBe(200);
    const previous = events.body.data[0].data.previous_attributes;
    expect(previous.start).toBe(version === '2026-11-01' ? MAX : '9999-12-31T23:59:59Z');
  });
});
