import { describe, expect, it } from 'vitest';
import { fromFhirId, fromReference, toFhirId } from '../../server/fhir/ids.js';
import { newId } from '../../server/ids.js';

const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;

describe('FHIR ids', () => {
  it.each([
    ['pat_01JD7X5K8M9N2P3Q4R5S6T7V8W', 'pat-01JD7X5K8M9N2P3Q4R5S6T7V8W'],
    ['appt_01JD8A2B3C4D5E6F7G8H9J0K1M', 'appt-01JD8A2B3C4D5E6F7G8H9J0K1M'],
    ['clm_01JD9C3D4E5F6G7H8J9K0M1N2P', 'clm-01JD9C3D4E5F6G7H8J9K0M1N2P'],
  ])('%s ↔ %s', (ours, fhir) => {
    expect(toFhirId(ours)).toBe(fhir);
    expect(fhir).toMatch(FHIR_ID);
    const type = ours.startsWith('pat')
      ? 'Patient'
      : ours.startsWith('appt')
        ? 'Appointment'
        : 'Claim';
    expect(fromFhirId(type, fhir)).toBe(ours);
  });

  it('reverses every id we mint, and each is a valid FHIR id', () => {
    for (let i = 0; i < 200; i++) {
      const id = newId('pat');
      expect(toFhirId(id)).toMatch(FHIR_ID);
      expect(fromFhirId('Patient', toFhirId(id))).toBe(id);
    }
  });

  it.each([
    ['Patient', 'appt-01JD8A2B3C4D5E6F7G8H9J0K1M'],
    ['Patient', 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W'],
    ['Patient', 'pat-01JD7X5K8M9N2P3Q4R5S6T7V8'],
    ['Patient', 'pat-01JD7X5K8M9N2P3Q4R5S6T7V8WX'],
    ['Patient', 'pat-01JD7X5K8M9N2P3Q4R5S6T7V8U'],
    ['Patient', 'example'],
    ['Claim', 'pat-01JD7X5K8M9N2P3Q4R5S6T7V8W'],
  ] as const)('a %s id we could not have made (%s) is none of ours', (type, fhir) => {
    expect(fromFhirId(type, fhir)).toBeUndefined();
  });

  it('a ClaimResponse has its claim id', () => {
    expect(fromFhirId('ClaimResponse', 'clm-01JD9C3D4E5F6G7H8J9K0M1N2P')).toBe(
      'clm_01JD9C3D4E5F6G7H8J9K0M1N2P',
    );
  });

  it('references resolve written as Type/id or as the id', () => {
    expect(fromReference('Patient', 'Patient/pat-01JD7X5K8M9N2P3Q4R5S6T7V8W')).toBe(
      'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W',
    );
    expect(fromReference('Patient', 'pat-01JD7X5K8M9N2P3Q4R5S6T7V8W')).toBe(
      'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W',
    );
    expect(fromReference('Patient', 'Claim/pat-01JD7X5K8M9N2P3Q4R5S6T7V8W')).toBeUndefined();
  });
});
