import { describe, expect, it } from 'vitest';
import {
  createPatient,
  errorOf,
  patientFields,
  useService,
  writeAuditRows,
} from './support/fixtures.js';

const fx = useService();

describe('createPatient', () => {
  it('creates a patient with every field present, defaults filled', async () => {
    const { t, test } = fx();
    const res = await createPatient(t, test.secret, { name: { family: 'Rivera' } });
    expect(res.body).toMatchObject({
      object: 'patient',
      livemode: false,
      identifiers: [],
      name: { family: 'Rivera', given: [], prefix: [], suffix: [] },
      birth_date: null,
      gender: null,
      email: null,
      phone: null,
      address: null,
      active: true,
      metadata: {},
    });
    expect(res.body.id).toMatch(/^pat_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(res.body.created).toBe(Math.floor(t.clock.now / 1000));
  });

  it('fills every address field, null when unset', async () => {
    const { t, test } = fx();
    const res = await createPatient(t, test.secret, {
      name: { family: 'Rivera' },
      address: { city: 'Springfield', country: 'US' },
    });
    expect(res.body.address).toEqual({
      line1: null,
      line2: null,
      city: 'Springfield',
      state: null,
      postal_code: null,
      country: 'US',
    });
  });

  it('emits patient.created carrying the request id and idempotency key, and audits the id', async () => {
    const { t, test } = fx();
    const res = await createPatient(t, test.secret, patientFields(), { idempotencyKey: 'k-1' });
    const events = await t.request({ method: 'GET', url: '/v1/events', key: test.secret });
    expect(events.body.data).toHaveLength(1);
    const [event] = events.body.data;
    expect(event).toMatchObject({
      type: 'patient.created',
      livemode: false,
      api_version: '2026-11-01',
      request: { id: res.headers['request-id'], idempotency_key: 'k-1' },
      pending_webhooks: 0,
      data: { object: res.body },
    });
    expect(event.data).not.toHaveProperty('previous_attributes');
    // Writes are audited in the write's own transaction (the table), not the batching sink.
    expect(await writeAuditRows(t, 'createPatient')).toEqual([
      { objectIds: [res.body.id], outcome: 'success', requestId: res.headers['request-id'] },
    ]);
  });

  it('answers 400 parameter_unknown naming an unknown field', async () => {
    const { t, test } = fx();
    const res = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: test.secret,
      body: { name: { family: 'Rivera' }, nickname: 'x' },
    });
    expect(errorOf(res)).toEqual({ status: 400, code: 'parameter_unknown', param: 'nickname' });
  });

  it('refuses readOnly fields (id, created, livemode) in a write', async () => {
    const { t, test } = fx();
    for (const field of ['id', 'created', 'livemode']) {
      const res = await t.request({
        method: 'POST',
        url: '/v1/patients',
        key: test.secret,
        body: { name: { family: 'Rivera' }, [field]: field === 'livemode' ? true : 'x' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(field);
    }
  });

  it('answers 400 parameter_missing without a name', async () => {
    const { t, test } = fx();
    const res = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: test.secret,
      body: { birth_date: '1980-01-01' },
    });
    expect(errorOf(res)).toMatchObject({ status: 400, code: 'parameter_missing' });
  });

  it('refuses a birth date in the future without echoing it', async () => {
    const { t, test } = fx();
    const res = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: test.secret,
      body: { name: { family: 'Rivera' }, birth_date: '2999-12-31' },
    });
    expect(errorOf(res)).toEqual({ status: 400, code: 'parameter_invalid', param: 'birth_date' });
    expect(res.text).not.toContain('2999');
  });

  it('answers 409 resource_already_exists for a duplicate MRN, naming no value', async () => {
    const { t, test } = fx();
    await createPatient(t, test.secret, patientFields(1));
    const res = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: test.secret,
      body: patientFields(1, { name: { family: 'Other' } }),
    });
    expect(errorOf(res)).toEqual({
      status: 409,
      code: 'resource_already_exists',
      param: 'identifiers',
    });
    expect(res.text).not.toContain('MRN1');
    expect(res.text).not.toContain('Family1');
    const list = await t.request({ method: 'GET', url: '/v1/patients', key: test.secret });
    expect(list.body.data).toHaveLength(1);
  });

  it('allows the same MRN in the other mode, and under another system', async () => {
    const { t, test, live } = fx();
    const first = await createPatient(t, test.secret, patientFields(1));
    const inLive = await createPatient(t, live.secret, patientFields(1));
    const other = patientFields(1);
    (other.identifiers as Array<{ system: string }>)[0]!.system = 'https://other.example/mrn';
    const otherSystem = await createPatient(t, test.secret, other);
    // Three patients, not one answered three times: each its own id, each in its own mode.
    const ids = [first, inLive, otherSystem].map((res) => res.body.id);
    expect(new Set(ids).size).toBe(3);
    expect([first, inLive, otherSystem].map((res) => res.body.livemode)).toEqual([
      false,
      true,
      false,
    ]);
    expect(otherSystem.body.identifiers).toEqual([
      { type: 'MR', system: 'https://other.example/mrn', value: 'MRN1' },
    ]);
    const list = async (secret: string) =>
      (await t.request({ method: 'GET', url: '/v1/patients', key: secret })).body.data.length;
    expect([await list(test.secret), await list(live.secret)]).toEqual([2, 1]);
  });

  it('answers 400 parameters_exclusive for a token together with patient fields', async () => {
    const { t, test } = fx();
    const res = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: test.secret,
      body: { token: 'tok_01JDB2C3D4E5F6G7H8J9K0M1NP', name: { family: 'Rivera' } },
    });
    expect(errorOf(res)).toMatchObject({
      status: 400,
      code: 'parameters_exclusive',
      param: 'token',
    });
  });
});

describe('retrievePatient', () => {
  it('returns the patient and audits the read', async () => {
    const { t, test } = fx();
    const created = await createPatient(t, test.secret);
    const res = await t.request({
      method: 'GET',
      url: `/v1/patients/${created.body.id}`,
      key: test.secret,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
    expect(t.audit.entries).toContainEqual(
      expect.objectContaining({
        operationId: 'retrievePatient',
        objectIds: [created.body.id],
        outcome: 'success',
      }),
    );
  });

  it('answers 404 resource_missing (param id) for an unknown id', async () => {
    const { t, test } = fx();
    const res = await t.request({
      method: 'GET',
      url: '/v1/patients/pat_01JD7X5K8M9N2P3Q4R5S6T7V8W',
      key: test.secret,
    });
    expect(errorOf(res)).toEqual({ status: 404, code: 'resource_missing', param: 'id' });
  });

  it('answers 400 for an id of another type', async () => {
    const { t, test } = fx();
    const res = await t.request({
      method: 'GET',
      url: '/v1/patients/appt_01JD7X5K8M9N2P3Q4R5S6T7V8W',
      key: test.secret,
    });
    expect(errorOf(res)).toMatchObject({ status: 400, code: 'parameter_invalid', param: 'id' });
  });

  it('keeps modes apart: a live key gets 404 for a test patient and the reverse', async () => {
    const { t, test, live } = fx();
    const testPatient = await createPatient(t, test.secret, patientFields(1));
    const livePatient = await createPatient(t, live.secret, patientFields(2));
    expect(livePatient.body.livemode).toBe(true);
    const a = await t.request({
      method: 'GET',
      url: `/v1/patients/${testPatient.body.id}`,
      key: live.secret,
    });
    const b = await t.request({
      method: 'GET',
      url: `/v1/patients/${livePatient.body.id}`,
      key: test.secret,
    });
    expect(errorOf(a).status).toBe(404);
    expect(errorOf(b).status).toBe(404);
    const list = await t.request({ method: 'GET', url: '/v1/patients', key: test.secret });
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([testPatient.body.id]);
  });
});

describe('updatePatient', () => {
  it('changes only the fields sent, merges metadata and emits previous_attributes', async () => {
    const { t, test } = fx();
    const created = await createPatient(
      t,
      test.secret,
      patientFields(1, { email: 'a@example.com', metadata: { keep: '1', drop: '2' } }),
    );
    t.clock.now += 5000;
    const res = await t.request({
      method: 'POST',
      url: `/v1/patients/${created.body.id}`,
      key: test.secret,
      body: { phone: '+14155550199', email: null, metadata: { drop: '', add: '3' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      phone: '+14155550199',
      email: null,
      name: created.body.name,
      birth_date: '1980-01-01',
      metadata: { keep: '1', add: '3' },
      updated: created.body.updated + 5,
      created: created.body.created,
    });
    const events = await t.request({
      method: 'GET',
      url: '/v1/events?type=patient.updated',
      key: test.secret,
    });
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0].data.previous_attributes).toEqual({
      phone: null,
      email: 'a@example.com',
      metadata: { keep: '1', drop: '2' },
      updated: created.body.updated,
    });
  });

  it('replaces name as a whole and clears metadata with null', async () => {
    const { t, test } = fx();
    const created = await createPatient(t, test.secret, patientFields(1, { metadata: { a: 'b' } }));
    const res = await t.request({
      method: 'POST',
      url: `/v1/patients/${created.body.id}`,
      key: test.secret,
      body: { name: { family: 'New' }, metadata: null },
    });
    expect(res.body.name).toEqual({ family: 'New', given: [], prefix: [], suffix: [] });
    expect(res.body.metadata).toEqual({});
  });

  it('treats {} as no change: same object, no event', async () => {
    const { t, test } = fx();
    const created = await createPatient(t, test.secret);
    t.clock.now += 5000;
    const res = await t.request({
      method: 'POST',
      url: `/v1/patients/${created.body.id}`,
      key: test.secret,
      body: {},
    });
    expect(res.body).toEqual(created.body);
    const events = await t.request({
      method: 'GET',
      url: '/v1/events?type=patient.updated',
      key: test.secret,
    });
    expect(events.body.data).toHaveLength(0);
  });

  it('answers 409 when the update takes another patient’s MRN, and keeps its own', async () => {
    const { t, test } = fx();
    await createPatient(t, test.secret, patientFields(1));
    const second = await createPatient(t, test.secret, patientFields(2));
    const clash = await t.request({
      method: 'POST',
      url: `/v1/patients/${second.body.id}`,
      key: test.secret,
      body: { identifiers: patientFields(1).identifiers },
    });
    expect(errorOf(clash)).toMatchObject({ status: 409, code: 'resource_already_exists' });
    const own = await t.request({
      method: 'POST',
      url: `/v1/patients/${second.body.id}`,
      key: test.secret,
      body: { identifiers: patientFields(2).identifiers, active: false },
    });
    expect(own.status).toBe(200);
    expect(own.body.active).toBe(false);
  });

  it('answers 404 for an unknown or other-mode id, and 400 for a readOnly field', async () => {
    const { t, test, live } = fx();
    const created = await createPatient(t, test.secret);
    const other = await t.request({
      method: 'POST',
      url: `/v1/patients/${created.body.id}`,
      key: live.secret,
      body: { active: false },
    });
    expect(errorOf(other)).toEqual({ status: 404, code: 'resource_missing', param: 'id' });
    const readOnly = await t.request({
      method: 'POST',
      url: `/v1/patients/${created.body.id}`,
      key: test.secret,
      body: { object: 'patient' },
    });
    expect(errorOf(readOnly)).toMatchObject({ status: 400, param: 'object' });
  });
});

describe('listPatients', () => {
  async function seed(n: number): Promise<string[]> {
    const { t, test } = fx();
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await createPatient(t, test.secret, patientFields(i, { active: i % 2 === 0 }));
      ids.push(res.body.id);
      t.clock.now += 1000;
    }
    return ids.reverse(); // newest first
  }

  it('walks every page forwards with starting_after and back with ending_before', async () => {
    const { t, test } = fx();
    const ids = await seed(25);
    const seen: string[] = [];
    const hasMore: boolean[] = [];
    let cursor: string | undefined;
    for (;;) {
      const url = `/v1/patients?limit=10${cursor ? `&starting_after=${cursor}` : ''}`;
      const page = await t.request({ method: 'GET', url, key: test.secret });
      expect(page.body.url).toBe('/v1/patients');
      seen.push(...page.body.data.map((p: { id: string }) => p.id));
      hasMore.push(page.body.has_more);
      if (!page.body.has_more) break;
      cursor = page.body.data.at(-1).id;
    }
    expect(seen).toEqual(ids);
    expect(hasMore).toEqual([true, true, false]);

    const back = await t.request({
      method: 'GET',
      url: `/v1/patients?limit=10&ending_before=${ids[20]}`,
      key: test.secret,
    });
    expect(back.body.data.map((p: { id: string }) => p.id)).toEqual(ids.slice(10, 20));
    expect(back.body.has_more).toBe(true);
    const first = await t.request({
      method: 'GET',
      url: `/v1/patients?limit=10&ending_before=${ids[5]}`,
      key: test.secret,
    });
    expect(first.body.data.map((p: { id: string }) => p.id)).toEqual(ids.slice(0, 5));
    expect(first.body.has_more).toBe(false);
  });

  it('defaults to 10 and enforces 1..100', async () => {
    const { t, test } = fx();
    await seed(12);
    const page = await t.request({ method: 'GET', url: '/v1/patients', key: test.secret });
    expect(page.body.data).toHaveLength(10);
    expect(page.body.has_more).toBe(true);
    const max = await t.request({ method: 'GET', url: '/v1/patients?limit=100', key: test.secret });
    expect(max.body.data).toHaveLength(12);
    for (const limit of ['0', '101', 'ten']) {
      const res = await t.request({
        method: 'GET',
        url: `/v1/patients?limit=${limit}`,
        key: test.secret,
      });
      expect(errorOf(res)).toMatchObject({
        status: 400,
        code: 'parameter_invalid',
        param: 'limit',
      });
    }
  });

  it('refuses both cursors at once and unknown query parameters', async () => {
    const { t, test } = fx();
    const [a, b] = await seed(2);
    const both = await t.request({
      method: 'GET',
      url: `/v1/patients?starting_after=${a}&ending_before=${b}`,
      key: test.secret,
    });
    expect(errorOf(both)).toMatchObject({ status: 400, code: 'parameters_exclusive' });
    const phi = await t.request({
      method: 'GET',
      url: '/v1/patients?family_name=Family1',
      key: test.secret,
    });
    expect(errorOf(phi)).toEqual({ status: 400, code: 'parameter_unknown', param: 'family_name' });
  });

  it('filters on active and created', async () => {
    const { t, test } = fx();
    const ids = await seed(6); // newest first; created at start + 0..5 s, active when even
    const active = await t.request({
      method: 'GET',
      url: '/v1/patients?active=true',
      key: test.secret,
    });
    expect(active.body.data.every((p: { active: boolean }) => p.active)).toBe(true);
    expect(active.body.data).toHaveLength(3);
    const start = Math.floor(t.clock.now / 1000) - 6;
    const range = await t.request({
      method: 'GET',
      url: `/v1/patients?created[gte]=${start + 2}&created[lt]=${start + 4}`,
      key: test.secret,
    });
    expect(range.body.data.map((p: { id: string }) => p.id)).toEqual(ids.slice(2, 4));
  });

  it('audits the ids it returned', async () => {
    const { t, test } = fx();
    const ids = await seed(3);
    await t.request({ method: 'GET', url: '/v1/patients', key: test.secret });
    const entry = t.audit.entries.find((e) => e.operationId === 'listPatients');
    expect(entry?.objectIds).toEqual(ids);
  });
});

describe('searchPatients', () => {
  async function seedPeople(): Promise<Record<string, string>> {
    const { t, test } = fx();
    const people = {
      ana: { name: { family: 'Rivera', given: ['Ana', 'Lucia'] }, birth_date: '1987-04-12' },
      ben: { name: { family: 'Rivas', given: ['Ben'] }, birth_date: '1990-01-01' },
      cara: {
        name: { family: 'García', given: ['Cara'] },
        email: 'Cara@Example.com',
        phone: '+14155550123',
        identifiers: [{ type: 'MR', system: 'https://clinic.example/mrn', value: '77' }],
      },
    };
    const ids: Record<string, string> = {};
    for (const [key, body] of Object.entries(people)) {
      ids[key] = (await createPatient(t, test.secret, body)).body.id;
    }
    return ids;
  }

  async function search(body: Record<string, unknown>) {
    const { t, test } = fx();
    return t.request({ method: 'POST', url: '/v1/patients/search', key: test.secret, body });
  }

  it('matches names by case-insensitive prefix and ANDs the criteria', async () => {
    const ids = await seedPeople();
    const riv = await search({ family_name: 'riv' });
    expect(riv.body.url).toBe('/v1/patients/search');
    expect(riv.body.data.map((p: { id: string }) => p.id)).toEqual([ids.ben, ids.ana]);
    const and = await search({ family_name: 'RIV', given_name: 'luc' });
    expect(and.body.data.map((p: { id: string }) => p.id)).toEqual([ids.ana]);
    const none = await search({ family_name: 'riv', birth_date: '2000-01-01' });
    expect(none.body.data).toEqual([]);
    const accent = await search({ family_name: 'garc' });
    expect(accent.body.data.map((p: { id: string }) => p.id)).toEqual([ids.cara]);
  });

  it('matches email case-insensitively and phone, identifier and birth date exactly', async () => {
    const ids = await seedPeople();
    for (const criteria of [
      { email: 'cara@example.COM' },
      { phone: '+14155550123' },
      { identifier: { system: 'https://clinic.example/mrn', value: '77' } },
    ]) {
      const res = await search(criteria);
      expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([ids.cara]);
    }
    const wrongSystem = await search({ identifier: { system: 'https://x.example', value: '77' } });
    expect(wrongSystem.body.data).toEqual([]);
    const date = await search({ birth_date: '1987-04-12' });
    expect(date.body.data.map((p: { id: string }) => p.id)).toEqual([ids.ana]);
  });

  it('pages with limit and starting_after in the body; {} matches everyone', async () => {
    const ids = await seedPeople();
    const first = await search({ limit: 2 });
    expect(first.body.has_more).toBe(true);
    expect(first.body.data.map((p: { id: string }) => p.id)).toEqual([ids.cara, ids.ben]);
    const next = await search({ limit: 2, starting_after: ids.ben });
    expect(next.body.data.map((p: { id: string }) => p.id)).toEqual([ids.ana]);
    expect(next.body.has_more).toBe(false);
  });

  it('refuses unknown criteria and keeps modes apart', async () => {
    const { t, live } = fx();
    await seedPeople();
    const unknown = await search({ surname: 'riv' });
    expect(errorOf(unknown)).toEqual({ status: 400, code: 'parameter_unknown', param: 'surname' });
    const other = await t.request({
      method: 'POST',
      url: '/v1/patients/search',
      key: live.secret,
      body: { family_name: 'riv' },
    });
    expect(other.body.data).toEqual([]);
  });

  it('replays the stored page for the same Idempotency-Key', async () => {
    const { t, test } = fx();
    await seedPeople();
    const req = {
      method: 'POST' as const,
      url: '/v1/patients/search',
      key: test.secret,
      body: { family_name: 'riv' },
      idempotencyKey: 'search-1',
    };
    const first = await t.request(req);
    await createPatient(t, test.secret, { name: { family: 'Rivet' } });
    const again = await t.request(req);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});
