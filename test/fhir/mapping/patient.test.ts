import { describe, expect, it } from 'vitest';
import { FhirError } from '../../../server/fhir/errors.js';
import { fromFhir, toFhir } from '../../../server/fhir/faces.js';
import { PATIENT_FIELDS, V2_IDENTIFIER_TYPES } from '../../../server/fhir/mapping/patient.js';
import type { StoredPatient } from '../../../server/resources/patient.js';
import { storedPatient } from '../fixtures.js';

/**
 * Given a stored field (merged over the fixture), want these FHIR elements; and from those
 * elements, want the stored field back (the third column; the second when left out). A field
 * that is unset is left out of the FHIR resource, and comes back as nothing: the create then
 * stores `/v1`'s default for it (null, or `[]` for identifiers).
 */
type Case = [string, Partial<StoredPatient>, Record<string, unknown>, Partial<StoredPatient>?];
const CASES: readonly Case[] = [
  [
    'identifiers',
    { identifiers: [{ type: 'MB', system: 'https://payer.example/members', value: 'W1' }] },
    {
      identifier: [
        {
          type: { coding: [{ system: V2_IDENTIFIER_TYPES, code: 'MB' }] },
          system: 'https://payer.example/members',
          value: 'W1',
        },
      ],
    },
  ],
  ['identifiers', { identifiers: [] }, {}],
  ['active', { active: false }, { active: false }],
  [
    'name',
    { name: { family: 'Rivera', given: ['Ana'], prefix: ['Dr.'], suffix: ['Jr.'] } },
    { name: [{ family: 'Rivera', given: ['Ana'], prefix: ['Dr.'], suffix: ['Jr.'] }] },
  ],
  [
    'name',
    { name: { family: 'Rivera', given: [], prefix: [], suffix: [] } },
    { name: [{ family: 'Rivera' }] },
    { name: { family: 'Rivera' } },
  ],
  [
    'email, phone',
    { email: 'a@example.com', phone: '+14155550123' },
    {
      telecom: [
        { system: 'email', value: 'a@example.com' },
        { system: 'phone', value: '+14155550123' },
      ],
    },
  ],
  ['email, phone', { email: null, phone: null }, {}, {}],
  ['gender', { gender: 'other' }, { gender: 'other' }],
  ['gender', { gender: null }, {}, {}],
  ['birth_date', { birth_date: '2001-02-03' }, { birthDate: '2001-02-03' }],
  ['birth_date', { birth_date: null }, {}, {}],
  [
    'address',
    {
      address: {
        line1: '1 A St',
        line2: 'Apt 2',
        city: 'X',
        state: 'IL',
        postal_code: '1',
        country: 'US',
      },
    },
    {
      address: [
        { line: ['1 A St', 'Apt 2'], city: 'X', state: 'IL', postalCode: '1', country: 'US' },
      ],
    },
  ],
  ['address', { address: null }, {}, {}],
];

function field(name: string) {
  const mapping = PATIENT_FIELDS.find((f) => f.field === name);
  if (mapping === undefined) throw new Error(`no field ${name}`);
  return mapping;
}

describe('Patient mapping, field by field', () => {
  it.each(CASES)('%s: stored %j → FHIR', (name, stored, fhir) => {
    expect(field(name).toFhir({ ...storedPatient, ...stored })).toEqual(fhir);
  });

  it.each(CASES)('%s: stored %j ← FHIR', (name, stored, fhir, back) => {
    expect(field(name).fromFhir(fhir)).toEqual(back ?? stored);
  });

  it('covers every field of the table', () => {
    expect(new Set(CASES.map(([name]) => name))).toEqual(
      new Set(PATIENT_FIELDS.map((f) => f.field)),
    );
  });
});

describe('toFhir(Patient)', () => {
  it('maps the id reversibly and sets meta from the stored record', () => {
    const patient = toFhir('Patient', storedPatient);
    expect(patient.resourceType).toBe('Patient');
    expect(patient.id).toBe('pat-01JD7X5K8M9N2P3Q4R5S6T7V8W');
    expect(patient.meta.lastUpdated).toBe('2026-11-02T00:01:00Z');
    expect(patient.meta.versionId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes versionId when the stored record changes, and only then', () => {
    const a = toFhir('Patient', storedPatient).meta.versionId;
    expect(toFhir('Patient', { ...storedPatient }).meta.versionId).toBe(a);
    expect(toFhir('Patient', { ...storedPatient, phone: '+14155550199' }).meta.versionId).not.toBe(
      a,
    );
  });

  it('reads back through fromFhir(Patient) to the same fields', () => {
    const back = fromFhir('Patient', toFhir('Patient', storedPatient));
    expect(back).toEqual({
      identifiers: storedPatient.identifiers,
      active: true,
      name: { family: 'Rivera', given: ['Ana', 'Lucia'], prefix: ['Dr.'] },
      email: storedPatient.email,
      phone: storedPatient.phone,
      gender: 'female',
      birth_date: '1987-04-12',
      address: {
        line1: '100 Main St',
        city: 'Springfield',
        state: 'IL',
        postal_code: '62701',
        country: 'US',
      },
    });
  });
});

describe('fromFhir(Patient) refuses what it cannot keep (422), never drops it', () => {
  const base = { resourceType: 'Patient' as const, name: [{ family: 'Rivera' }] };
  it.each([
    ['two names', { name: [{ family: 'A' }, { family: 'B' }] }, 'Patient.name'],
    ['a name without family', { name: [{ given: ['Ana'] }] }, 'Patient.name[0].family'],
    [
      'two emails',
      {
        telecom: [
          { system: 'email' as const, value: 'a@x.io' },
          { system: 'email' as const, value: 'b@x.io' },
        ],
      },
      'Patient.telecom[1]',
    ],
    ['two addresses', { address: [{ city: 'A' }, { city: 'B' }] }, 'Patient.address'],
    [
      'an identifier type we do not know',
      {
        identifier: [
          {
            type: { coding: [{ system: V2_IDENTIFIER_TYPES, code: 'XX' }] },
            system: 'https://a.example',
            value: '1',
          },
        ],
      },
      'Patient.identifier[0].type',
    ],
    [
      'an identifier without system',
      {
        identifier: [
          { type: { coding: [{ system: V2_IDENTIFIER_TYPES, code: 'MR' }] }, value: '1' },
        ],
      },
      'Patient.identifier[0].system',
    ],
  ])('%s', (_label, patch, expression) => {
    let thrown: unknown;
    try {
      fromFhir('Patient', { ...base, ...patch });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FhirError);
    expect((thrown as FhirError).statusCode).toBe(422);
    expect((thrown as FhirError).expression).toBe(expression);
  });

  it('ignores id and meta, which the server assigns', () => {
    expect(fromFhir('Patient', { ...base, id: 'x', meta: {} })).toEqual({
      identifiers: [],
      name: { family: 'Rivera' },
    });
  });
});
