import { describe, expect, it } from 'vitest';
import { expandSmartScopes, smartScopes } from '../../contract/smart-scopes.js';
import { FHIR_TYPES } from '../../server/fhir/faces.js';

describe('SMART scope names', () => {
  it.each([
    ['system/Patient.read', ['patients:read']],
    ['system/Patient.rs', ['patients:read']],
    ['system/Patient.write', ['patients:write']],
    ['system/Patient.cud', ['patients:write']],
    ['system/Patient.*', ['patients:read', 'patients:write']],
    ['system/Practitioner.rs', ['practitioners:read']],
    ['system/Practitioner.*', ['practitioners:read', 'practitioners:write']],
    ['system/Appointment.read', ['appointments:read']],
    ['system/Claim.read', ['billing:read']],
    ['system/ClaimResponse.cruds', ['billing:read', 'billing:write']],
  ])('%s is %j', (name, want) => {
    expect(smartScopes(name)).toEqual(want);
  });

  it.each([
    'patient/Patient.read',
    'user/Patient.read',
    'system/Observation.read',
    'system/Patient.delete',
    'patients:read',
  ])('%s is not a SMART name we map', (name) => {
    expect(smartScopes(name)).toBeUndefined();
  });

  it.each(Object.keys(FHIR_TYPES))('every FHIR type served has its SMART names: %s', (type) => {
    const readScope = FHIR_TYPES[type as keyof typeof FHIR_TYPES].resource.readScope;
    expect(smartScopes(`system/${type}.rs`)).toEqual([readScope]);
  });

  it('leaves our names and unknown names for the key store to judge', () => {
    expect(expandSmartScopes(['patients:read', 'system/Claim.read', 'nonsense'])).toEqual([
      'patients:read',
      'billing:read',
      'nonsense',
    ]);
  });
});
