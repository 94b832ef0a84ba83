/**
 * The FHIR data types every resource mapping shares: instants, `meta`, references, codings and
 * money. The field tables that use them, and the resource envelope, are fields.ts.
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
