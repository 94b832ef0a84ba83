/**
 * FHIR search as FHIR clients expect it (issue 29), through the real app with every answer
 * checked against the spec: accurate `total` on every page, `_summary=count`, `POST
 * [type]/_search` with a form body (the same Bundle, scopes, audit; values never logged),
 * lenient handling of unsupported parameters with a warning entry and strict handling with
 * `Prefer: handling=strict`, and absolute URLs from `PUBLIC_URL`, never from `Host`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp, type TestAppOptions } from '../support/app.js';
import { makeKey, type TestKey } from '../support/keys.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read FHIR JSON fields freely; the injector checked each body against the spec.
type Body = Record<string, any>;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const STRICT = { prefer: 'handling=strict' };

let t: TestApp;
let key: TestKey;
const logLines: string[] = [];

async function start(options: TestAppOptions = {}): Promise<void> {
  logLines.length = 0;
  t = await buildTestApp({
    logger: { level: 'info', stream: { write: (line: string) => void logLines.push(line) } },
    ...options,
  });
  key = await makeKey(t.db, { nowMs: t.clock.now });
}
afterEach(async () => {
  await t.close();
});

/** `n` patients whose family names start with `family`, newest last; their ids. */
async function patients(n: number, family: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await t.request<Body>({
      method: 'POST',
      url: '/v1/patients',
      key: key.secret,
      body: { name: { family: `${family}${i}` }, gender: i % 2 === 0 ? 'female' : 'male' },
    });
    expect(res.status).toBe(200);
    ids.push(res.body.id.replace('_', '-'));
    t.clock.now += 1000;
  }
  return ids;
}

async function get(url: string, headers: Record<string, string> = {}) {
  return t.request<Body>({ method: 'GET', url, key: key.secret, headers });
}

async function postSearch(url: string, form: string, headers: Record<string, string> = {}) {
  return t.request<Body>({
    method: 'POST',
    url,
    key: key.secret,
    headers: { ...FORM, ...headers },
    payload: form,
  });
}

/** The path and query of an absolute URL, to request it again through `inject`. */
const local = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

describe('total and _summary=count', () => {
  it('every page says how many match; paging returns each match once', async () => {
    await start();
    const ids = await patients(7, 'Quorra');
    await patients(2, 'Other');
    const seen: string[] = [];
    let url: string | undefined = '/fhir/R4/Patient?family=quorra&_count=3';
    let pages = 0;
    while (url !== undefined) {
      const res = await get(url);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(7);
      seen.push(...res.body.entry.map((e: Body) => e.resource.id));
      const next: Body | undefined = res.body.link.find((l: Body) => l.relation === 'next');
      url = next === undefined ? undefined : local(next.url);
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
    expect((await get('/fhir/R4/Patient?family=quorra&gender=male')).body.total).toBe(3);
  });

  it('_summary=count: total and no entries, on every searchable type', async () => {
    await start();
    await patients(4, 'Counted');
    const res = await get('/fhir/R4/Patient?family=counted&_summary=count');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(4);
    expect(res.body.entry).toBeUndefined();
    expect(res.body.link).toEqual([
      {
        relation: 'self',
        url: 'http://127.0.0.1:4010/fhir/R4/Patient?_summary=count&family=counted',
      },
    ]);
    for (const type of ['Appointment', 'Claim', 'ClaimResponse']) {
      const counted = await get(`/fhir/R4/${type}?_summary=count`);
      expect(counted.status, type).toBe(200);
      expect(counted.body, type).toMatchObject({ total: 0 });
      expect(counted.body.entry, type).toBeUndefined();
    }
  });
});

describe('lenient and strict handling', () => {
  it('Patient?family=X&_elements=name: 200 with a warning entry; strict: 400', async () => {
    await start();
    const [id] = await patients(1, 'Lenient');
    const res = await get('/fhir/R4/Patient?family=lenient&_elements=name');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    expect(res.body.entry.map((e: Body) => e.search.mode)).toEqual(['match', 'outcome']);
    expect(res.body.entry[0].resource.id).toBe(id);
    expect(res.body.entry[1].resource).toMatchObject({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'warning', code: 'not-supported', expression: ['_elements'] }],
    });
    // The self link shows the search that was run, without what was ignored.
    expect(res.body.link[0].url).toBe('http://127.0.0.1:4010/fhir/R4/Patient?family=lenient');
    const strict = await get('/fhir/R4/Patient?family=lenient&_elements=name', STRICT);
    expect(strict.status).toBe(400);
    expect(strict.body.issue[0]).toMatchObject({
      severity: 'error',
      code: 'not-supported',
      expression: ['_elements'],
    });
  });

  it.each([
    ['_summary=true', '_summary'],
    ['_total=accurate', '_total'],
    ['_sort=-_lastUpdated', '_sort'],
    ['_include=Appointment:patient', '_include'],
    ['_revinclude=Appointment:patient', '_revinclude'],
    ['nickname=Bo', 'nickname'],
  ])('%s is ignored with a warning; strict refuses it', async (param, name) => {
    await start();
    const res = await get(`/fhir/R4/Patient?${param}`);
    expect(res.status).toBe(200);
    expect(res.body.entry.at(-1)).toMatchObject({
      search: { mode: 'outcome' },
      resource: { issue: [{ severity: 'warning', expression: [name] }] },
    });
    expect((await get(`/fhir/R4/Patient?${param}`, STRICT)).status).toBe(400);
  });

  it.each([
    ['handling=strict', true],
    ['handling="strict"', true],
    ['Handling = "strict"', true],
    ['return=minimal, handling=strict', true],
    ['respond-async,  wait=10 ,handling="strict";x=1', true],
    ['handling=strict, handling=lenient', true],
    ['handling=lenient, handling=strict', false],
    ['handling="lenient"', false],
    // A parameter of another preference is not a preference (RFC 7240 §2).
    ['return=minimal; handling=strict', false],
    // Values compare case-sensitively; an unknown value leaves the default.
    ['handling=STRICT', false],
    ['handling="strict', false],
  ])('Prefer: %s → strict %s, by GET and by POST _search', async (prefer, strict) => {
    await start();
    const headers = { prefer };
    const status = strict ? 400 : 200;
    expect((await get('/fhir/R4/Patient?_elements=name', headers)).status).toBe(status);
    const posted = await postSearch('/fhir/R4/Patient/_search', '_elements=name', headers);
    expect(posted.status).toBe(status);
  });

  it('an invalid value of a supported parameter stays a 400', async () => {
    await start();
    const res = await get('/fhir/R4/Patient?gender=sometimes');
    expect(res.status).toBe(400);
    expect(res.body.resourceType).toBe('OperationOutcome');
  });
});

describe('POST [type]/_search', () => {
  it('answers the same Bundle as the GET, for every searchable type', async () => {
    await start();
    await patients(3, 'Formal');
    const get1 = await get('/fhir/R4/Patient?family=formal&_count=2');
    const post1 = await postSearch('/fhir/R4/Patient/_search', 'family=formal&_count=2');
    expect(post1.status).toBe(200);
    expect(post1.body).toEqual(get1.body);
    // Parameters may come in both the URL and the body.
    const mixed = await postSearch('/fhir/R4/Patient/_search?_count=2', 'family=formal');
    expect(mixed.body).toEqual(get1.body);
    // The next link pages with a GET, as any FHIR client follows it.
    const next = get1.body.link.find((l: Body) => l.relation === 'next');
    expect((await get(local(next.url))).body.entry).toHaveLength(1);
    for (const type of ['Appointment', 'Claim', 'ClaimResponse']) {
      const viaGet = await get(`/fhir/R4/${type}?_count=5`);
      const viaPost = await postSearch(`/fhir/R4/${type}/_search`, '_count=5');
      expect(viaPost.status, type).toBe(200);
      expect(viaPost.body, type).toEqual(viaGet.body);
    }
  });

  it('lenient and strict as the GET; an empty body searches everything', async () => {
    await start();
    await patients(2, 'Empty');
    const lenient = await postSearch('/fhir/R4/Patient/_search', 'family=empty&_elements=name');
    expect(lenient.body.entry.at(-1).search.mode).toBe('outcome');
    const strict = await postSearch('/fhir/R4/Patient/_search', '_elements=name', STRICT);
    expect(strict.status).toBe(400);
    const all = await postSearch('/fhir/R4/Patient/_search', '');
    expect(all.body.total).toBe(2);
  });

  it('same scopes and audit as the GET; the values never reach the logs or the audit', async () => {
    await start();
    const [id] = await patients(1, 'Secretname');
    logLines.length = 0;
    t.audit.entries.length = 0;
    const res = await postSearch('/fhir/R4/Patient/_search', 'family=secretname&given=hidden');
    expect(res.status).toBe(200);
    const entry = t.audit.entries.find((e) => e.operationId === 'searchFhirPatientsByPost');
    expect(entry).toBeDefined();
    const found = await postSearch('/fhir/R4/Patient/_search', 'family=secretname');
    expect(found.body.entry[0].resource.id).toBe(id);
    const audited = t.audit.entries.filter((e) => e.operationId === 'searchFhirPatientsByPost');
    expect(audited.at(-1)?.objectIds).toEqual([id!.replace('-', '_')]);
    expect(logLines.length).toBeGreaterThan(0);
    const logged = logLines.join('\n').toLowerCase();
    expect(logged).toContain('/fhir/r4/patient/_search');
    expect(logged).not.toContain('secretname');
    expect(logged).not.toContain('hidden');
    expect(JSON.stringify(t.audit.entries).toLowerCase()).not.toContain('secretname');

    const appointmentsOnly = await makeKey(t.db, {
      kind: 'restricted',
      scopes: ['appointments:read'],
      nowMs: t.clock.now,
    });
    const denied = await t.request<Body>({
      method: 'POST',
      url: '/fhir/R4/Patient/_search',
      key: appointmentsOnly.secret,
      headers: FORM,
      payload: 'family=secretname',
    });
    expect(denied.status).toBe(403);
    expect(denied.body.issue[0].code).toBe('forbidden');
    const allowed = await t.request<Body>({
      method: 'POST',
      url: '/fhir/R4/Appointment/_search',
      key: appointmentsOnly.secret,
      headers: FORM,
      payload: '',
    });
    expect(allowed.status).toBe(200);
  });
});

describe('_format in the query and in a form body', () => {
  // Each as a client writes it: a `+` left unescaped arrives as a space.
  const REFUSED = [
    'xml',
    'XML',
    'text/xml',
    'application/xml',
    'application/fhir%2Bxml',
    'application/fhir+xml',
    'application/xml%2Bfhir',
    'application/fhir%2Bxml;charset=utf-8',
    'application/fhir%2Bxml%3B%20fhirVersion%3D4.0',
    // The other formats FHIR defines and this server does not serve.
    'ttl',
    'text/turtle',
    'application/fhir%2Bturtle',
    'html',
    'text/html',
  ];

  it.each(REFUSED)(
    '_format=%s: 406 OperationOutcome by GET and by POST _search',
    async (format) => {
      await start();
      const answers = [
        await get(`/fhir/R4/Patient?_format=${format}`),
        await postSearch('/fhir/R4/Patient/_search', `_format=${format}`),
        await postSearch(`/fhir/R4/Patient/_search?_format=${format}`, ''),
        // A form that also holds an invalid value: the format is refused first, as by GET.
        await postSearch('/fhir/R4/Patient/_search', `gender=sometimes&_format=${format}`),
        await get(`/fhir/R4/Patient?gender=sometimes&_format=${format}`),
      ];
      for (const res of answers) {
        expect(res.status).toBe(406);
        expect(res.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
        expect(res.body).toMatchObject({
          resourceType: 'OperationOutcome',
          issue: [{ severity: 'error', code: 'not-supported', expression: ['_format'] }],
        });
      }
    },
  );

  it('every searchable type refuses XML in a form like in its query; metadata too', async () => {
    await start();
    // R4 resource-formats.html: a CapabilityStatement asked for in a format not served is 406.
    for (const format of ['xml', 'ttl', 'text/html']) {
      expect((await get(`/fhir/R4/metadata?_format=${format}`)).status, format).toBe(406);
    }
    // Not a format at all: the parameter's enum refuses it.
    expect((await get('/fhir/R4/Patient?_format=yaml')).status).toBe(400);
    expect((await postSearch('/fhir/R4/Patient/_search', '_format=yaml')).status).toBe(400);
    for (const type of ['Patient', 'Appointment', 'Claim', 'ClaimResponse']) {
      expect((await get(`/fhir/R4/${type}?_format=xml`)).status, type).toBe(406);
      const posted = await postSearch(`/fhir/R4/${type}/_search`, '_format=xml');
      expect(posted.status, type).toBe(406);
    }
  });

  it.each(['json', 'application/json', 'application/fhir%2Bjson'])(
    '_format=%s: the same Bundle by GET and by POST _search',
    async (format) => {
      await start();
      await patients(1, 'Formatted');
      const viaGet = await get(`/fhir/R4/Patient?family=formatted&_format=${format}`);
      expect(viaGet.status).toBe(200);
      const viaPost = await postSearch(
        '/fhir/R4/Patient/_search',
        `family=formatted&_format=${format}`,
      );
      expect(viaPost.status).toBe(200);
      expect(viaPost.body.total).toBe(1);
      expect(viaPost.body.entry).toEqual(viaGet.body.entry);
    },
  );
});

describe('absolute URLs', () => {
  it('with PUBLIC_URL: every fullUrl, link and Location is PUBLIC_URL + path; Host is never used', async () => {
    const PUBLIC = 'https://api.patientcare.example';
    await start({ config: { publicUrl: PUBLIC } });
    await patients(3, 'Absolute');
    const evil = { host: 'evil.example', 'x-forwarded-host': 'evil.example' };
    const res = await get('/fhir/R4/Patient?family=absolute&_count=2', evil);
    expect(res.text).not.toContain('evil');
    for (const entry of res.body.entry) {
      expect(entry.fullUrl).toBe(`${PUBLIC}/fhir/R4/Patient/${entry.resource.id}`);
    }
    expect(res.body.link.map((l: Body) => l.url)).toEqual([
      `${PUBLIC}/fhir/R4/Patient?_count=2&family=absolute`,
      `${PUBLIC}/fhir/R4/Patient?_count=2&family=absolute&_cursor=${res.body.entry[1].resource.id}`,
    ]);
    const created = await t.request<Body>({
      method: 'POST',
      url: '/fhir/R4/Patient',
      key: key.secret,
      headers: { 'content-type': 'application/fhir+json', ...evil },
      body: { resourceType: 'Patient', name: [{ family: 'Located' }] },
    });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`${PUBLIC}/fhir/R4/Patient/${created.body.id}`);
    const metadata = await t.request<Body>({
      method: 'GET',
      url: '/fhir/R4/metadata',
      headers: evil,
    });
    expect(metadata.body.implementation.url).toBe(`${PUBLIC}/fhir/R4`);
  });
});

describe('Appointment?_id', () => {
  it('finds one appointment by its FHIR id, none for an unknown one, and is in the CapabilityStatement', async () => {
    await start();
    const [patient] = await patients(1, 'Id');
    const booked: string[] = [];
    // This key speaks 2026-11-01, where times are unix seconds.
    for (const start of [1_800_000_000, 1_800_003_600]) {
      const res = await t.request<Body>({
        method: 'POST',
        url: '/v1/appointments',
        key: key.secret,
        body: {
          patient: patient?.replace('-', '_'),
          practitioner: 'Dr. Lee',
          start,
          end: start + 1800,
        },
      });
      expect([res.status, res.body.error?.message]).toEqual([200, undefined]);
      booked.push(res.body.id.replace('_', '-'));
    }
    const found = await get(`/fhir/R4/Appointment?_id=${booked[0]}`);
    expect(found.status).toBe(200);
    expect(found.body.total).toBe(1);
    expect(found.body.entry.map((e: Body) => e.resource.id)).toEqual([booked[0]]);
    const byPost = await postSearch('/fhir/R4/Appointment/_search', `_id=${booked[1]}`);
    expect(byPost.body.entry.map((e: Body) => e.resource.id)).toEqual([booked[1]]);
    // Another type's id, or one we could not have made, matches nothing (never a 400).
    for (const other of [patient, 'appt-nope']) {
      const none = await get(`/fhir/R4/Appointment?_id=${other}`);
      expect([none.status, none.body.total]).toEqual([200, 0]);
    }
    const metadata = await t.request<Body>({ method: 'GET', url: '/fhir/R4/metadata' });
    const appointment = metadata.body.rest[0].resource.find((r: Body) => r.type === 'Appointment');
    expect(appointment.searchParam).toContainEqual(
      expect.objectContaining({ name: '_id', type: 'token' }),
    );
  });
});
