import { describe, expect, it } from 'vitest';
import { NAMED_IGNORED_LIMIT, searchset, searchsetText } from '../../server/fhir/bundle.js';
import { toFhir } from '../../server/fhir/faces.js';
import { RenderCache } from '../../server/fhir/render-cache.js';
import { attachRequestInfo } from '../../server/fhir/request-info.js';
import type { StoredPatient } from '../../server/resources/patient.js';
import { storedPatient } from './fixtures.js';

const second: StoredPatient = {
  ...storedPatient,
  id: 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8X',
  gender: 'male',
};
const rows = [storedPatient, second].map((p) => ({ id: p.id, json: JSON.stringify(p) }));
const BASE = 'https://api.example.com/fhir/R4';

/** A validated query as the FHIR scope hands it on: with the base and ignored parameters. */
function queryOf(
  values: Record<string, unknown>,
  ignored: string[] = [],
  base = BASE,
): Record<string, unknown> {
  const query = { ...values };
  attachRequestInfo(query, { base, ignored });
  return query;
}

describe('searchset Bundles', () => {
  it('the spliced text is the same JSON as the object; links and fullUrls are absolute', () => {
    const query = queryOf({ family: 'Riv', _count: 2 });
    const page = { data: [storedPatient, second], hasMore: true, total: 5 };
    const text = searchsetText(
      'Patient',
      query,
      { data: rows, hasMore: true, total: 5 },
      (r: StoredPatient) => toFhir('Patient', r),
      new RenderCache(10),
    );
    expect(text).toBe(
      JSON.stringify(searchset('Patient', query, page, (r: StoredPatient) => toFhir('Patient', r))),
    );
    const bundle = JSON.parse(text);
    expect(bundle.total).toBe(5);
    expect(bundle.link).toEqual([
      { relation: 'self', url: `${BASE}/Patient?_count=2&family=Riv` },
      {
        relation: 'next',
        url: `${BASE}/Patient?_count=2&family=Riv&_cursor=pat-01JD7X5K8M9N2P3Q4R5S6T7V8X`,
      },
    ]);
    expect(bundle.entry.map((e: { fullUrl: string }) => e.fullUrl)).toEqual([
      `${BASE}/Patient/pat-01JD7X5K8M9N2P3Q4R5S6T7V8W`,
      `${BASE}/Patient/pat-01JD7X5K8M9N2P3Q4R5S6T7V8X`,
    ]);
  });

  it('no next link on the last page; an empty page has no entries', () => {
    const text = searchsetText(
      'Patient',
      queryOf({}),
      { data: [], hasMore: false, total: 0 },
      (r: StoredPatient) => toFhir('Patient', r),
      new RenderCache(10),
    );
    expect(JSON.parse(text)).toEqual({
      resourceType: 'Bundle',
      type: 'searchset',
      total: 0,
      link: [{ relation: 'self', url: `${BASE}/Patient` }],
      entry: [],
    });
  });

  it('ignored parameters: a warning entry after the matches; count only: no matches', () => {
    const query = queryOf({ family: 'Riv' }, ['_elements', '_sort']);
    const page = { data: [storedPatient], hasMore: false, total: 1 };
    const one = { data: rows.slice(0, 1), hasMore: false, total: 1 };
    const text = searchsetText(
      'Patient',
      query,
      one,
      (r: StoredPatient) => toFhir('Patient', r),
      new RenderCache(10),
    );
    expect(text).toBe(
      JSON.stringify(searchset('Patient', query, page, (r: StoredPatient) => toFhir('Patient', r))),
    );
    const bundle = JSON.parse(text);
    expect(bundle.entry.map((e: { search: { mode: string } }) => e.search.mode)).toEqual([
      'match',
      'outcome',
    ]);
    expect(bundle.entry[1].resource.issue).toMatchObject([
      { severity: 'warning', code: 'not-supported', expression: ['_elements'] },
      { severity: 'warning', code: 'not-supported', expression: ['_sort'] },
    ]);
    const counted = searchsetText(
      'Patient',
      queryOf({ _summary: 'count' }),
      { data: [], hasMore: false, total: 7 },
      (r: StoredPatient) => toFhir('Patient', r),
      new RenderCache(10),
      true,
    );
    expect(JSON.parse(counted)).toEqual({
      resourceType: 'Bundle',
      type: 'searchset',
      total: 7,
      link: [{ relation: 'self', url: `${BASE}/Patient?_summary=count` }],
    });
  });

  it('80,000 ignored parameters: the first ones named, the rest counted in one issue', () => {
    const names = Array.from({ length: 80_000 }, (_, i) => `p${i}`);
    const page = { data: [], hasMore: false, total: 0 };
    const bundle = searchset('Patient', queryOf({}, names), page, (r: StoredPatient) =>
      toFhir('Patient', r),
    );
    const outcome = JSON.parse(JSON.stringify(bundle.entry?.[0]?.resource)) as {
      issue: { diagnostics?: string }[];
    };
    const issues = outcome.issue;
    expect(issues).toHaveLength(NAMED_IGNORED_LIMIT + 1);
    expect(issues[0]).toMatchObject({ expression: ['p0'] });
    expect(issues.at(-1)).toMatchObject({ severity: 'warning', code: 'not-supported' });
    expect(issues.at(-1)?.diagnostics).toMatch(/^79980 more search parameters/);
    expect(JSON.stringify(bundle).length).toBeLessThan(10_000);
  });

  it('a cached entry is served on another base with that base', () => {
    const cache = new RenderCache(10);
    const page = { data: rows, hasMore: false, total: 2 };
    searchsetText('Patient', queryOf({}), page, (r: StoredPatient) => toFhir('Patient', r), cache);
    const other = 'http://127.0.0.1:5000/fhir/R4';
    const text = searchsetText(
      'Patient',
      queryOf({}, [], other),
      page,
      (r: StoredPatient) => toFhir('Patient', r),
      cache,
    );
    expect(JSON.parse(text).entry[0].fullUrl).toBe(
      `${other}/Patient/pat-01JD7X5K8M9N2P3Q4R5S6T7V8W`,
    );
  });

  it('a changed record is rendered anew, never served from the cache', () => {
    const cache = new RenderCache(10);
    let renders = 0;
    const counting = (p: StoredPatient) => {
      renders++;
      return toFhir('Patient', p);
    };
    const all = { data: rows, hasMore: false, total: 2 };
    searchsetText('Patient', queryOf({}), all, counting, cache);
    searchsetText('Patient', queryOf({}), all, counting, cache);
    expect(renders).toBe(2);
    const changed = {
      id: storedPatient.id,
      json: JSON.stringify({ ...storedPatient, phone: '+14155550199' }),
    };
    const text = searchsetText(
      'Patient',
      queryOf({}),
      { data: [changed], hasMore: false, total: 1 },
      counting,
      cache,
    );
    expect(renders).toBe(3);
    expect(JSON.parse(text).entry[0].resource.telecom).toContainEqual({
      system: 'phone',
      value: '+14155550199',
    });
  });

  it('link query strings are form-encoded as URLSearchParams writes them', () => {
    const values = { family: "O'Brien Zoë~!*", given: ['a+b', 'c&d=e'], _count: 2, 'x y': '-._' };
    const text = searchsetText(
      'Patient',
      queryOf({ ...values, _cursor: 'pat-01JD7X5K8M9N2P3Q4R5S6T7V8W' }),
      { data: rows, hasMore: true, total: 3 },
      (r: StoredPatient) => toFhir('Patient', r),
      new RenderCache(10),
    );
    const expected = new URLSearchParams();
    for (const name of Object.keys(values).sort()) {
      const value = values[name as keyof typeof values];
      for (const item of [value].flat()) expected.append(name, String(item));
    }
    const [self, next] = JSON.parse(text).link;
    expect(self.url).toBe(`${BASE}/Patient?${expected}&_cursor=pat-01JD7X5K8M9N2P3Q4R5S6T7V8W`);
    expect(next.url).toBe(`${BASE}/Patient?${expected}&_cursor=pat-01JD7X5K8M9N2P3Q4R5S6T7V8X`);
  });

  it('keeps at most its size, dropping one not used since the last sweep', () => {
    const cache = new RenderCache(2);
    let renders = 0;
    const render = (key: string) =>
      cache.get(key, `stored ${key}`, BASE, () => `${key}${++renders}`);
    render('a');
    render('b');
    render('a');
    render('c');
    expect(render('a')).toBe('a1');
    expect(render('b')).toBe('b4');
  });

  it('renders afresh when the stored text or the base is not the one an entry was made from', () => {
    const cache = new RenderCache(10);
    let renders = 0;
    const render = (stored: string, base: string) =>
      cache.get('a', stored, base, () => `${++renders}`);
    expect(render('v1', BASE)).toBe('1');
    expect(render('v1', BASE)).toBe('1');
    expect(render('v2', BASE)).toBe('2');
    expect(render('v2', 'http://127.0.0.1:4010/fhir/R4')).toBe('3');
    expect(render('v2', 'http://127.0.0.1:4010/fhir/R4')).toBe('3');
  });
});
