/**
 * Practitioner ↔ FHIR R4 Practitioner, field by field (docs/design.md#fhir-r4): the NPI is an
 * identifier under `http://hl7.org/fhir/sid/us-npi`, the specialty a qualification coded in
 * the NUCC provider taxonomy, the contact a work telecom. Not mapped: `metadata`, `livemode`,
 * `created` (FHIR Practitioner has no such element; `meta.lastUpdated` is `updated`).
 */
import type { components } from '../../../generated/types.js';
import { NPI_SYSTEM, type StoredPractitioner } from '../../resources/practitioner.js';
import { coded, codeOf, notStorable } from './common.js';
import type { FieldMapping } from './fields.js';
import { fhirHumanName } from './patient.js';

export type FhirPractitioner = components['schemas']['FhirPractitioner'];

/** The code system of `specialty`: the NUCC Health Care Provider Taxonomy. */
export const NUCC_TAXONOMY = 'http://nucc.org/provider-taxonomy';

type Field = FieldMapping<
  StoredPractitioner,
  Omit<FhirPractitioner, 'resourceType' | 'id' | 'meta'>
>;

/** Each stored field and its FHIR elements, both ways. */
export const PRACTITIONER_FIELDS: readonly Field[] = [
  {
    field: 'npi',
    toFhir: (p) => (p.npi === null ? {} : { identifier: [{ system: NPI_SYSTEM, value: p.npi }] }),
    fromFhir: (r) => {
      const [npi, ...rest] = r.identifier ?? [];
      if (npi === undefined) return {};
      if (rest.length > 0 || npi.system !== NPI_SYSTEM)
        throw notStorable('Practitioner.identifier', `one identifier of ${NPI_SYSTEM} is kept.`);
      return { npi: npi.value };
    },
  },
  {
    field: 'active',
    toFhir: (p) => ({ active: p.active }),
    fromFhir: (r) => (r.active === undefined ? {} : { active: r.active }),
  },
  {
    field: 'name',
    toFhir: (p) => ({ name: [fhirHumanName(p.name)] }),
    fromFhir: (r) => {
      const [name, ...rest] = r.name ?? [];
      if (name === undefined) return {};
      if (rest.length > 0) throw notStorable('Practitioner.name', 'exactly one name is kept.');
      return { name: { ...name, family: name.family ?? '' } };
    },
  },
  {
    field: 'contact',
    toFhir: (p) => {
      const telecom: NonNullable<FhirPractitioner['telecom']> = [];
      if (p.contact.email) telecom.push({ system: 'email', value: p.contact.email });
      if (p.contact.phone) telecom.push({ system: 'phone', value: p.contact.phone });
      return telecom.length > 0 ? { telecom } : {};
    },
    fromFhir: (r) => {
      const contact: StoredPractitioner['contact'] = {};
      for (const point of r.telecom ?? []) contact[point.system] = point.value;
      return r.telecom === undefined ? {} : { contact };
    },
  },
  {
    field: 'specialty',
    toFhir: (p) =>
      p.specialty === null ? {} : { qualification: [{ code: coded(NUCC_TAXONOMY, p.specialty) }] },
    fromFhir: (r) => {
      const [qualification] = r.qualification ?? [];
      if (qualification === undefined) return {};
      const code = codeOf(qualification.code, NUCC_TAXONOMY);
      if (code === undefined)
        throw notStorable(
          'Practitioner.qualification[0].code',
          `needs a coding of ${NUCC_TAXONOMY}.`,
        );
      return { specialty: code };
    },
  },
];
