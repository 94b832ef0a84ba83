import { describe, expect, it } from 'vitest';
import { searchset, searchsetText } from '../../server/fhir/bundle.js';
import { patientToFhir, type StoredPatient } from '../../server/fhir/mapping/patient.js';
import { RenderCache } from '../../server/fhir/render-cache.js';
import { storedPatient } from './fixtures.js';

const second: StoredPatient = {
  ...storedPatient,
  id: 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8X',
  gender: 'male',
};
const rows = [storedPatient, second].map((p) => ({ id: p.id, json: JSON.stringify(p) }));
const query = { family: 'Riv', _count: 2 };

describe('searchset Bundles', () => {
  it('the spliced text is the same JSON as the object, links included', () => {
    const page = { data: [storedPatient, second], hasMore: true };
    const text = searchsetText(
      'Patient',
      query,
      { data: rows, hasMore: true },
      patientToFhir,
      new RenderCache(10),
    );
    expect(text).toBe(JSON.stringify(searchset('Patient', query, page, patientToFhir)));
    expect(JSON.parse(text).link).toEqual([
      { relation: 'self', url: 'Patient?_count=2&family=Riv' },
      {
        relation: 'next',
        url: 'Patient?_count=2&family=Riv&_cursor=pat-01JD7X5K8M9N2P3Q4R5S6T7V8X',
      },
    ]);
  });

  it('no next link on the last page; an empty page has no entries', () => {
    const text = searchsetText(
      'Patient',
      {},
      { data: [], hasMore: false },
      patientToFhir,
      new RenderCache(10),
    );
    expect(JSON.parse(text)).toEqual({
      resourceType: 'Bundle',
      type: 'searchset',
      link: [{ relation: 'self', url: 'Patient' }],
      entry: [],
    });
  });

  it('a changed record is rendered anew, never served from the cache', () => {
    const cache = new RenderCache(10);
    let renders = 0;
    const counting = (p: StoredPatient) => {
      renders++;
      return patientToFhir(p);
    };
    searchsetText('Patient', {}, { data: rows, hasMore: false }, counting, cache);
    searchsetText('Patient', {}, { data: rows, hasMore: false }, counting, cache);
    expect(renders).toBe(2);
    const changed = {
      id: storedPatient.id,
      json: JSON.stringify({ ...storedPatient, phone: '+14155550199' }),
    };
    const text = searchsetText('Patient', {}, { data: [changed], hasMore: false }, counting, cache);
    expect(renders).toBe(3);
    expect(JSON.parse(text).entry[0].resource.telecom).toContainEqual({
      system: 'phone',
      value: '+14155550199',
    });
  });

  it('keeps at most its size, dropping the least recently used', () => {
    const cache = new RenderCache(2);
    let renders = 0;
    const render = (key: string) => cache.get(key, () => `${key}${++renders}`);
    render('a');
    render('b');
    render('a');
    render('c');
    expect(render('a')).toBe('a1');
    expect(render('b')).toBe('b4');
  });
});
