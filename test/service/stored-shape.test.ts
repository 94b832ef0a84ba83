/**
 * Stored documents meet today's schema (server/repos/stored-shape.ts): a patient stored before
 * the spec adds a required nullable `preferred_language` answers `"preferred_language": null`
 * from an app built from the grown document, with no other edit: on `/v1` (read and list, in
 * the latest version and pinned to 2026-11-01) and in its event; `doctor` lists a stored row
 * the grown schema would reject, by id. A field with a `default` (Patient `active` given one)
 * answers it on /fhir/R4 (read and search), on /v1 in both versions and in the event. The
 * doctor's check reads every resource of the registry.
 */
import { describe, expect, it } from 'vitest';
import { routeTableOf } from '../../generators/route-table.js';
import { openDb } from '../../server/db/open.js';
import { runDoctor } from '../../server/doctor/checks.js';
import { fillRulesOf, meetSchemaText, useFillRules } from '../../server/repos/stored-shape.js';
import { RESOURCES } from '../../server/resources/index.js';
import { versions } from '../../server/versioning/index.js';
import { loadSpec } from '../spec/load-spec.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { makeKey } from '../support/keys.js';

interface Grown {
  components: {
    schemas: Record<string, { properties: Record<string, unknown>; required: string[] }>;
  };
}

/** A GET that must answer 200, in `version` (default the latest); its body. */
function reader(app: TestApp, key: string) {
  return async (url: string, version: string = versions.latest) => {
    const response = await app.request({
      method: 'GET',
      url,
      key,
      headers: { 'patientcare-version': version },
    });
    expect(response.status, url).toBe(200);
    return response.body as Record<string, unknown>;
  };
}

/** The spec with `preferred_language` added to Patient the house way: required and nullable. */
function grownSpec(): Record<string, unknown> {
  const document = loadSpec();
  const patient = (document as unknown as Grown).components.schemas.Patient;
  if (patient === undefined) throw new Error('no Patient schema');
  patient.properties.preferred_language = {
    type: 'string',
    nullable: true,
    description: 'BCP 47 language tag the patient prefers; `null` when not stated.',
    example: 'es',
  };
  patient.required = [...patient.required, 'preferred_language'];
  return document;
}

describe('stored rows after the spec grows a field', () => {
  it('derives the fill from the response schema: null for required nullable, else the default', () => {
    const rules = fillRulesOf(routeTableOf(grownSpec()).componentSchemas);
    expect(rules.get('patient')).toContainEqual(['preferred_language', null]);
    // The route table keeps an API object field's `default` (it drops other annotations).
    const defaulted = fillRulesOf(routeTableOf(defaultedSpec()).componentSchemas);
    expect(defaulted.get('patient')).toContainEqual(['active', true]);
  });

  it('answers "preferred_language": null for a patient stored before it, everywhere', async () => {
    const db = await openDb('sqlite::memory:');
    const { secret } = await makeKey(db);
    const auth = { authorization: `Bearer ${secret}` };
    const before = await buildTestApp({ db });
    const created = await before.request({
      method: 'POST',
      url: '/v1/patients',
      key: secret,
      headers: { 'patientcare-version': versions.latest },
      body: { name: { family: 'Rivera', given: ['Ana'] }, birth_date: '1987-04-12' },
    });
    expect(created.status).toBe(200);
    const id = (created.body as { id: string }).id;
    expect(created.body).not.toHaveProperty('preferred_language');
    await before.app.close();

    // The grown document's app; its injector checks every answer against that document.
    const after = await buildTestApp({ db, table: routeTableOf(grownSpec()) });
    try {
      const get = reader(after, secret);
      expect((await get(`/v1/patients/${id}`)).preferred_language).toBeNull();
      const list = (await get('/v1/patients')) as { data: Record<string, unknown>[] };
      expect(list.data.map((p) => p.preferred_language)).toEqual([null]);
      // Pinned to an older version (no module mentions the new field: an addition).
      const pinned = await after.app.inject({
        method: 'GET',
        url: `/v1/patients/${id}`,
        headers: { ...auth, 'patientcare-version': '2026-11-01' },
      });
      expect(pinned.json()).toHaveProperty('preferred_language', null);
      const events = (await get('/v1/events')) as {
        data: { type: string; data: { object: Record<string, unknown> } }[];
      };
      const event = events.data.find((e) => e.type === 'patient.created');
      expect(event?.data.object.preferred_language).toBeNull();
      // The doctor reads rows as the API does: filled, this one meets the grown schema.
      const grown = routeTableOf(grownSpec()).componentSchemas;
      const stored = async () =>
        (await runDoctor(db, { limit: 10, componentSchemas: grown })).find(
          (finding) => finding.check === 'stored-schema',
        );
      expect(await stored()).toMatchObject({ count: 0 });
      // A row the schema would reject (a required field without a default) is listed by id.
      const row = await db.get('SELECT data FROM patients WHERE id = $1', [id]);
      const { name: _name, ...nameless } = JSON.parse(String(row?.data)) as Record<string, unknown>;
      await db.run('UPDATE patients SET data = $1 WHERE id = $2', [JSON.stringify(nameless), id]);
      const found = await stored();
      expect(found).toMatchObject({ count: 1, ids: [id], kind: 'repair' });
      expect(found?.summary).toContain('patient/ required');
    } finally {
      await after.app.close();
      await db.close();
    }
  });
});

/** The spec with Patient `active` given a `default` of true, as a field added with one would be. */
function defaultedSpec(): Record<string, unknown> {
  const document = loadSpec();
  const patient = (document as unknown as Grown).components.schemas.Patient;
  if (patient === undefined) throw new Error('no Patient schema');
  patient.properties.active = { ...(patient.properties.active as object), default: true };
  return document;
}

describe('a stored row without a field that has a default', () => {
  it('answers the default on /fhir/R4 (read and search), on /v1 in every version and in its event', async () => {
    const db = await openDb('sqlite::memory:');
    const { secret } = await makeKey(db);
    const before = await buildTestApp({ db });
    const created = await before.request({
      method: 'POST',
      url: '/v1/patients',
      key: secret,
      headers: { 'patientcare-version': versions.latest },
      body: { name: { family: 'Rivera', given: ['Ana'] }, birth_date: '1987-04-12' },
    });
    expect(created.status).toBe(200);
    const id = (created.body as { id: string }).id;
    await before.app.close();
    // Written before `active` existed: neither the row nor its event's snapshot has the key.
    const without = (
      json: unknown,
      at: (doc: Record<string, unknown>) => Record<string, unknown>,
    ) => {
      const doc = JSON.parse(String(json)) as Record<string, unknown>;
      delete at(doc).active;
      return JSON.stringify(doc);
    };
    const row = await db.get('SELECT data FROM patients WHERE id = $1', [id]);
    await db.run('UPDATE patients SET data = $1 WHERE id = $2', [without(row?.data, (d) => d), id]);
    const event = await db.get("SELECT id, data FROM events WHERE type = 'patient.created'", []);
    const snapshot = (d: Record<string, unknown>) =>
      (d.data as { object: Record<string, unknown> }).object;
    await db.run('UPDATE events SET data = $1 WHERE id = $2', [
      without(event?.data, snapshot),
      String(event?.id),
    ]);

    const after = await buildTestApp({ db, table: routeTableOf(defaultedSpec()) });
    try {
      const get = reader(after, secret);
      // FHIR ids spell the prefix with a hyphen (`pat-…`).
      const fhirId = id.replace('_', '-');
      expect((await get(`/fhir/R4/Patient/${fhirId}`)).active).toBe(true);
      const bundle = (await get(`/fhir/R4/Patient?_id=${fhirId}`)) as {
        entry: { resource: { active?: unknown } }[];
      };
      expect(bundle.entry.map((e) => e.resource.active)).toEqual([true]);
      expect((await get(`/v1/patients/${id}`)).active).toBe(true);
      expect((await get(`/v1/patients/${id}`, '2026-11-01')).active).toBe(true);
      const list = (await get('/v1/patients')) as { data: Record<string, unknown>[] };
      expect(list.data.map((p) => p.active)).toEqual([true]);
      const events = (await get('/v1/events')) as {
        data: { type: string; data: { object: Record<string, unknown> } }[];
      };
      const stored = events.data.find((e) => e.type === 'patient.created');
      expect(stored?.data.object.active).toBe(true);
    } finally {
      await after.app.close();
      await db.close();
    }
  });
});

describe('an appointment booked before practitioner_id existed', () => {
  it('answers practitioner_id: null in the latest version, nothing in 2026-11-01, and reads on FHIR', async () => {
    const t = await buildTestApp();
    try {
      const { secret } = await makeKey(t.db);
      const patient = await t.request({
        method: 'POST',
        url: '/v1/patients',
        key: secret,
        body: { name: { family: 'Rivera' } },
      });
      const booked = await t.request({
        method: 'POST',
        url: '/v1/appointments',
        key: secret,
        body: {
          patient: patient.body.id,
          practitioner: 'Dr. Lee',
          start: 1795747516,
          end: 1795749316,
        },
      });
      expect(booked.status).toBe(200);
      const id = (booked.body as { id: string }).id;
      // The row as a release before the field wrote it: no practitioner_id key at all.
      const row = await t.db.get('SELECT data FROM appointments WHERE id = $1', [id]);
      const { practitioner_id: _gone, ...old } = JSON.parse(String(row?.data));
      await t.db.run('UPDATE appointments SET data = $1 WHERE id = $2', [JSON.stringify(old), id]);
      const read = (version: string, url = `/v1/appointments/${id}`) =>
        t.request({ method: 'GET', url, key: secret, headers: { 'patientcare-version': version } });
      const latest = await read(versions.latest);
      expect(latest.body).toHaveProperty('practitioner_id', null);
      const pinned = await read('2026-11-01');
      expect(pinned.body).not.toHaveProperty('practitioner_id');
      const fhir = await read(versions.latest, `/fhir/R4/Appointment/${id.replace('_', '-')}`);
      expect(fhir.status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe("doctor's stored-schema check", () => {
  it('reads every resource of the registry by its own response schema, as the API reads it', async () => {
    const t = await buildTestApp();
    try {
      const { secret } = await makeKey(t.db);
      const post = async (url: string, body: unknown) => {
        const response = await t.request({
          method: 'POST',
          url,
          key: secret,
          headers: { 'patientcare-version': versions.latest },
          body,
        });
        expect(response.status, `${url}: ${response.text}`).toBe(200);
        return (response.body as { id: string }).id;
      };
      const npi = '1234567893';
      const patient = await post('/v1/patients', { name: { family: 'Rivera' } });
      const practitioner = await post('/v1/practitioners', { name: { family: 'Lee' }, npi });
      const appointment = await post('/v1/appointments', {
        patient,
        practitioner_id: practitioner,
        practitioner: 'Dr. Lee',
        start: '2026-12-14T09:00:00+01:00',
        end: '2026-12-14T09:30:00+01:00',
      });
      await post('/v1/claims', {
        patient,
        appointment,
        billing_type: 'self_pay',
        type: 'professional',
        currency: 'usd',
        billing_provider: { npi, tax_id: '12-3456789' },
        diagnoses: [{ sequence: 1, system: 'icd10', code: 'I10' }],
        line_items: [
          {
            sequence: 1,
            procedure_code: '99213',
            diagnosis_sequences: [1],
            service_date: '2026-12-14',
            quantity: 1,
            unit_amount: 12500,
          },
        ],
      });
      await post('/v1/webhooks', { url: 'http://127.0.0.1:9/', enabled_events: ['*'] });
      const stored = async () =>
        (await runDoctor(t.db, { limit: 100 })).find((f) => f.check === 'stored-schema');
      // Rows written today meet the schema, appointments (stored in unix seconds) included.
      expect(await stored()).toMatchObject({ count: 0 });

      // One row of each resource loses a field its response schema requires: each is listed.
      const ids: string[] = [];
      for (const { table } of RESOURCES) {
        const row = await t.db.get(`SELECT id, data FROM ${table} LIMIT 1`, []);
        expect(row, table).toBeDefined();
        const id = String(row?.id);
        const { livemode: _livemode, ...rest } = JSON.parse(String(row?.data));
        await t.db.run(`UPDATE ${table} SET data = $1 WHERE id = $2`, [JSON.stringify(rest), id]);
        ids.push(id);
      }
      const found = await stored();
      expect(found?.count).toBe(RESOURCES.length);
      expect([...(found?.ids ?? [])].sort()).toEqual(ids.sort());
      for (const { name } of RESOURCES) expect(found?.summary).toContain(`${name}/ required`);
    } finally {
      await t.close();
    }
  });
});

describe('stored JSON text on its way out (meetSchemaText)', () => {
  const rules = fillRulesOf(routeTableOf(grownSpec()).componentSchemas);
  const patient = (extra: Record<string, unknown> = {}) => ({
    id: 'pat_01M8JS37QP0PPP140CCG6Z7VM0',
    object: 'patient',
    name: { family: 'Rivera', given: ['Ana'] },
    metadata: {},
    ...extra,
  });
  // Every field the grown spec fills, as a row written today has them.
  const complete = (extra: Record<string, unknown> = {}) =>
    Object.fromEntries([
      ...(rules.get('patient') ?? []).map(([name, value]) => [name, value]),
      ...Object.entries(patient(extra)),
    ]);
  const filled = (json: string) => JSON.parse(meetSchemaText(json)) as Record<string, unknown>;

  it('leaves a row that names every field as it is, the same string', () => {
    useFillRules(rules);
    const text = JSON.stringify(complete());
    expect(meetSchemaText(text)).toBe(text);
    // A row of an object type with no rules at all is not touched either.
    const other = JSON.stringify({ id: 'x', object: 'no_such_type' });
    expect(meetSchemaText(other)).toBe(other);
  });

  it('fills a row without the field, also when metadata has a key of that name', () => {
    useFillRules(rules);
    expect(filled(JSON.stringify(patient()))).toHaveProperty('preferred_language', null);
    // The client chose this key; it is not the field.
    const { preferred_language: _, ...tricky } = complete({
      metadata: { preferred_language: 'x', note: 'a } brace and a \\" quote', object: 'patient' },
    });
    const out = filled(JSON.stringify(tricky));
    expect(out).toHaveProperty('preferred_language', null);
    expect(out.metadata).toEqual(tricky.metadata);
  });

  it('remembers a checked row by id only while its text stays the same', () => {
    useFillRules(rules);
    const id = 'pat_01M8JS37QP0PPP140CCG6Z7VM1';
    const whole = JSON.stringify(complete({ id }));
    expect(meetSchemaText(whole, id)).toBe(whole);
    expect(meetSchemaText(whole, id)).toBe(whole);
    // Same id, other text (a row stored before the field, or a stale copy): filled, not reused.
    const older = JSON.stringify(patient({ id }));
    expect(JSON.parse(meetSchemaText(older, id))).toHaveProperty('preferred_language', null);
    // New rules forget what the old ones passed: a field they add is filled in a row seen before.
    const narrower = new Map([...rules].map(([type, fills]) => [type, fills.slice(1)]));
    useFillRules(narrower);
    const [dropped] = rules.get('patient') ?? [];
    const { [dropped![0]]: _, ...without } = complete({ id });
    const text = JSON.stringify(without);
    expect(meetSchemaText(text, id)).toBe(text);
    useFillRules(rules);
    expect(JSON.parse(meetSchemaText(text, id))).toHaveProperty(dropped![0], dropped![1]);
  });

  it("fills an event's snapshot by the snapshot's own type", () => {
    useFillRules(rules);
    const event = {
      id: 'evt_1',
      object: 'event',
      type: 'patient.created',
      data: { object: patient() },
    };
    const out = filled(JSON.stringify(event)) as { data: { object: Record<string, unknown> } };
    expect(out.data.object).toHaveProperty('preferred_language', null);
    const whole = JSON.stringify({ ...event, data: { object: complete() } });
    expect(meetSchemaText(whole)).toBe(whole);
  });

  it('no text holds two object types that share a filled field', () => {
    // namesEveryField looks for a key in the whole text: an event and its snapshot must not
    // both have a filled field of one name, or the snapshot's could pass for the event's.
    const served = fillRulesOf(routeTableOf(loadSpec()).componentSchemas);
    const eventFields = new Set((served.get('event') ?? []).map(([name]) => name));
    for (const [type, fills] of served) {
      if (type === 'event') continue;
      for (const [name] of fills) expect(eventFields.has(name), `${type}.${name}`).toBe(false);
    }
  });
});
