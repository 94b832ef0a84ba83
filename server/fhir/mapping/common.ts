/**
 * Pieces every resource mapping shares: instants, `meta`, references, codings and money.
 * Each resource's own fields are mapped in its file (patient.ts, appointment.ts, claim.ts,
 * claim-response.ts), as field tables read in both directions.
 */
import { createHash } from 'node:crypto';
import type { components } from '../../../generated/types.js';
import { storedSecondsOut } from '../../domain/date-time.js';
import { FhirError } from '../errors.js';
import { type FhirResourceType, fromReference, toFhirId } from '../ids.js';

type Schemas = components['schemas'];
export type FhirMeta = Schemas['FhirMeta'];
export type FhirReference = Schemas['FhirReference'];
export type FhirCodeableConcept = Schemas['FhirCodeableConcept'];
export type FhirMoney = Schemas['FhirMoney'];

/**
 * Stored fields as a FHIR resource carries them: any of them, and of an object field the parts
 * FHIR has an element for (a Claim's provider has an NPI but no tax id).
 */
export type FromFhir<Stored> = {
  [K in keyof Stored]?: Stored[K] extends readonly unknown[]
    ? Stored[K]
    : Stored[K] extends object
      ? Partial<Stored[K]>
      : Stored[K];
};

/**
 * One field of a resource in both directions. `toFhir` reads the stored record and returns the
 * FHIR elements it fills (none when the field is unset); `fromFhir` reads those elements and
 * returns the stored fields, throwing `422` for what the stored record cannot hold, so nothing
 * sent is silently dropped.
 */
export interface FieldMapping<Stored, Resource> {
  /** The stored field(s), as named in `/v1`. */
  readonly field: string;
  readonly toFhir: (stored: Stored) => Partial<Resource>;
  readonly fromFhir: (resource: Partial<Resource>) => FromFhir<Stored>;
}

/** What the server sets on every resource; the field tables map the rest. */
interface Envelope {
  resourceType: FhirResourceType;
  id: string;
  meta: FhirMeta;
}

/**
 * The FHIR resource of a stored record: `resourceType`, `id` and `meta` from the record, then
 * every field's `toFhir`, merged in table order.
 */
export function toFhirResource<Stored extends Versioned & { id: string }, Resource>(
  type: FhirResourceType,
  fields: readonly FieldMapping<Stored, Omit<Resource, keyof Envelope>>[],
  stored: Stored,
): Resource {
  const out: Envelope = { resourceType: type, id: toFhirId(stored.id), meta: metaOf(stored) };
  for (const field of fields) Object.assign(out, field.toFhir(stored));
  return out as Resource;
}

/**
 * The stored fields a FHIR resource carries: every field's `fromFhir`, merged. `id` and `meta`
 * are the server's and are ignored, as FHIR create does.
 */
export function fromFhirResource<Stored, Resource>(
  fields: readonly FieldMapping<Stored, Omit<Resource, keyof Envelope>>[],
  resource: Partial<Resource>,
): FromFhir<Stored> {
  const out: FromFhir<Stored> = {};
  for (const field of fields) {
    Object.assign(out, field.fromFhir(resource as Partial<Omit<Resource, keyof Envelope>>));
  }
  return out;
}

/**
 * A FHIR `instant` (`2026-11-01T00:00:00Z`) for stored unix seconds: the API's one conversion,
 * so a time an earlier release stored out of range reads as it does in `/v1` (clamped).
 */
export const instant: (seconds: number) => string = storedSecondsOut;

/** Unix seconds for a FHIR `instant`/`dateTime` with a zone, or `422` naming `expression`. */
export function secondsOf(text: string, expression: string): number {
  const ms = Date.parse(text);
  if (!/T.*(Z|[+-]\d\d:\d\d)$/.test(text) || !Number.isFinite(ms) || ms % 1000 !== 0) {
    throw new FhirError(
      422,
      'value',
      `${expression} must be an instant in whole seconds with a time zone.`,
      {
        expression,
      },
    );
  }
  return ms / 1000;
}

/** What `meta` is made from: every stored record has these. */
export interface Versioned {
  created: number;
  updated?: number;
}

/**
 * `meta` for a stored record: `versionId` is a digest of the stored object, so it changes with
 * every change (an `updated` second could repeat), and costs one hash of a few hundred bytes.
 */
export function metaOf(stored: Versioned): FhirMeta {
  const versionId = createHash('sha256').update(JSON.stringify(stored)).digest('hex').slice(0, 16);
  return { versionId, lastUpdated: instant(stored.updated ?? stored.created) };
}

/** A resolvable reference to one of our resources. */
export function referenceTo(type: FhirResourceType, id: string): FhirReference {
  return { reference: `${type}/${toFhirId(id)}`, type };
}

/** Our id from a reference written by `referenceTo`, or `422` naming `expression`. */
export function idFromReference(
  type: FhirResourceType,
  reference: FhirReference | undefined,
  expression: string,
): string {
  const id =
    reference?.reference === undefined ? undefined : fromReference(type, reference.reference);
  if (id === undefined || !reference?.reference?.startsWith(`${type}/`)) {
    throw new FhirError(
      422,
      'value',
      `${expression} must reference a ${type} of this server (${type}/{id}).`,
      {
        expression,
      },
    );
  }
  return id;
}

/**
 * A stored time (unix seconds, `null` when unset) as an instant element, both ways. `read`
 * picks the time to show when it is not the field itself (a ClaimResponse made before
 * adjudication dates from the claim's last change).
 */
export function instantField<Stored, Resource>(
  field: keyof Stored & string,
  element: keyof Resource & string,
  expression: string,
  read: (stored: Stored) => unknown = (stored) => stored[field],
): FieldMapping<Stored, Resource> {
  return {
    field,
    toFhir: (stored) => {
      const seconds = read(stored);
      return (
        typeof seconds === 'number' ? { [element]: instant(seconds) } : {}
      ) as Partial<Resource>;
    },
    fromFhir: (resource) => {
      const text = resource[element];
      if (typeof text !== 'string') return {};
      return { [field]: secondsOf(text, expression) } as FromFhir<Stored>;
    },
  };
}

/**
 * A stored id field as a reference element to one of our resources, both ways (a claim's
 * `patient` is `Claim.patient`; its own id is `ClaimResponse.request`).
 */
export function referenceField<Stored, Resource>(
  field: keyof Stored & string,
  element: keyof Resource & string,
  type: FhirResourceType,
  expression: string,
): FieldMapping<Stored, Resource> {
  return {
    field,
    toFhir: (stored) =>
      ({ [element]: referenceTo(type, String(stored[field])) }) as Partial<Resource>,
    fromFhir: (resource) => {
      const reference = resource[element] as FhirReference | undefined;
      if (reference === undefined) return {};
      return { [field]: idFromReference(type, reference, expression) } as FromFhir<Stored>;
    },
  };
}

/** A CodeableConcept with one coding. */
export function coded(system: string, code: string): FhirCodeableConcept {
  return { coding: [{ system, code }] };
}

/** The code of `system` in a CodeableConcept, or `undefined`. */
export function codeOf(
  concept: FhirCodeableConcept | undefined,
  system: string,
): string | undefined {
  return concept?.coding?.find((coding) => coding.system === system)?.code;
}

/** A `422 not-supported` for an element we cannot store as sent. */
export function notStorable(expression: string, why: string): FhirError {
  return new FhirError(422, 'not-supported', `${expression}: ${why}`, { expression });
}

/** Decimal places of a currency's minor unit (2 for USD, 0 for JPY), from ICU's data. */
function minorDigits(currency: string): number {
  return (
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
      .maximumFractionDigits ?? 2
  );
}

/**
 * FHIR Money for an amount in the currency's minor unit (ours: `12500` `usd`), in major units
 * with an upper-case ISO 4217 code (`125` `USD`), as FHIR's Money is.
 */
export function money(minor: number, currency: string): FhirMoney {
  const code = currency.toUpperCase();
  return { value: minor / 10 ** minorDigits(code), currency: code };
}

/** The minor-unit amount and lower-case currency of FHIR Money. */
export function minorOf(value: FhirMoney): { amount: number; currency: string } {
  const scale = 10 ** minorDigits(value.currency);
  return { amount: Math.round(value.value * scale), currency: value.currency.toLowerCase() };
}
