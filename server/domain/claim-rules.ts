/**
 * The rules a submitted claim must meet beyond its JSON Schema (the Claims tag of the spec), and
 * the amounts the server computes. Pure: the handler checks what needs the database (the
 * patient, the appointment) itself. Every violation is 400 `parameter_invalid` naming the field
 * in the bracket notation the validator uses (`line_items[0][diagnosis_sequences][1]`).
 */
import type { components } from '../../generated/types.js';
import { ApiError } from '../errors.js';

/** The body of `submitClaim` (schema `ClaimCreateParams`). */
export type ClaimCreateParams = components['schemas']['ClaimCreateParams'];
type LineItemParams = components['schemas']['ClaimLineItemParams'];

/** A line item as stored and returned: the submitted one plus the server's `amount`. */
export interface PricedLineItem {
  sequence: number;
  procedure_code: string;
  modifiers: string[];
  diagnosis_sequences: number[];
  service_date: string;
  quantity: number;
  unit_amount: number;
  amount: number;
}

/** NPI prefix for the Luhn check: the card-issuer prefix `80840` NPI is defined under. */
const NPI_PREFIX = '80840';

/** ICD-10-CM with its dot, as the spec's `ClaimDiagnosis.code` pattern. */
export const ICD10_CM = /^[A-TV-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?$/;

/** CPT (five digits, or four and `F`/`T`) or HCPCS Level II, as the spec's `ProcedureCode`. */
export const PROCEDURE_CODE = /^([0-9]{4}[0-9FT]|[A-V][0-9]{4})$/;

function invalid(param: string, reason: string): ApiError {
  return new ApiError('parameter_invalid', {
    param,
    message: `Invalid value for ${param}: ${reason}.`,
  });
}

/** The Luhn check digit that completes `digits` (a string of decimal digits). */
export function luhnCheckDigit(digits: string): number {
  let sum = 0;
  // Doubling starts at the rightmost digit, since the check digit will sit to its right.
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * Whether `npi` is a National Provider Identifier: ten digits whose last is the Luhn check
 * digit of `80840` followed by the first nine (the NPI standard's definition).
 *
 * @example isValidNpi('1234567893') // true
 */
export function isValidNpi(npi: string): boolean {
  if (!/^[0-9]{10}$/.test(npi)) return false;
  return luhnCheckDigit(NPI_PREFIX + npi.slice(0, 9)) === npi.charCodeAt(9) - 48;
}

let currencies: ReadonlySet<string> | undefined;

/**
 * Whether `code` is a lower-case ISO 4217 code the runtime's ICU knows. ICU's list is the
 * standard's active codes, so a typo like `usb` is refused while the pattern would pass it.
 */
export function isCurrency(code: string): boolean {
  currencies ??= new Set(Intl.supportedValuesOf('currency').map((c) => c.toLowerCase()));
  return /^[a-z]{3}$/.test(code) && currencies.has(code);
}

/** Checks that `sequences` are exactly 1..n in some order; throws naming the offending entry. */
function assertSequence(items: readonly { sequence: number }[], field: string): void {
  const seen = new Set<number>();
  items.forEach((item, i) => {
    if (seen.has(item.sequence)) {
      throw invalid(`${field}[${i}][sequence]`, `sequence ${item.sequence} is used twice`);
    }
    seen.add(item.sequence);
  });
  items.forEach((item, i) => {
    if (item.sequence > items.length) {
      throw invalid(
        `${field}[${i}][sequence]`,
        `sequences must be numbered 1 to ${items.length} without gaps`,
      );
    }
  });
}

/**
 * Throws the first rule the claim breaks (insurance by billing type, NPI check digit, code
 * shapes, sequences 1..n, diagnosis references, currency). The schema has already checked types
 * and ranges; the shape checks are repeated so the rules hold for callers other than HTTP.
 */
export function assertClaimRules(params: ClaimCreateParams): void {
  if (params.billing_type === 'insurance' && (params.insurance ?? null) === null) {
    throw invalid('insurance', 'required when `billing_type` is `insurance`');
  }
  if (params.billing_type === 'self_pay' && (params.insurance ?? null) !== null) {
    throw invalid('insurance', 'must be absent or `null` when `billing_type` is `self_pay`');
  }
  if (!isValidNpi(params.billing_provider.npi)) {
    throw invalid('billing_provider[npi]', 'not a valid NPI (10 digits with a Luhn check digit)');
  }
  params.diagnoses.forEach((diagnosis, i) => {
    if (!ICD10_CM.test(diagnosis.code)) {
      throw invalid(`diagnoses[${i}][code]`, 'not an ICD-10-CM code (e.g. `E11.9`)');
    }
  });
  assertSequence(params.diagnoses, 'diagnoses');
  const diagnoses = new Set(params.diagnoses.map((d) => d.sequence));
  params.line_items.forEach((line, i) => {
    if (!PROCEDURE_CODE.test(line.procedure_code)) {
      throw invalid(`line_items[${i}][procedure_code]`, 'not a CPT or HCPCS code');
    }
    line.diagnosis_sequences.forEach((ref, j) => {
      if (!diagnoses.has(ref)) {
        throw invalid(
          `line_items[${i}][diagnosis_sequences][${j}]`,
          `no diagnosis has sequence ${ref}`,
        );
      }
    });
  });
  assertSequence(params.line_items, 'line_items');
  if (!isCurrency(params.currency)) {
    throw invalid('currency', 'not a lower-case ISO 4217 currency code');
  }
}

/**
 * Prices the line items: `amount = quantity × unit_amount` per line and their sum, in integer
 * minor units. Beyond `Number.MAX_SAFE_INTEGER` integers lose precision, so such a claim is
 * refused rather than stored with a rounded total (the schema's limits keep real claims far
 * below it).
 */
export function priceLineItems(lines: readonly LineItemParams[]): {
  lineItems: PricedLineItem[];
  amountTotal: number;
} {
  let amountTotal = 0;
  const lineItems = lines.map((line, i) => {
    const amount = line.quantity * line.unit_amount;
    amountTotal += amount;
    if (!Number.isSafeInteger(amount) || !Number.isSafeInteger(amountTotal)) {
      throw invalid(`line_items[${i}][quantity]`, 'the claim total is too large');
    }
    return {
      sequence: line.sequence,
      procedure_code: line.procedure_code,
      modifiers: [...(line.modifiers ?? [])],
      diagnosis_sequences: [...line.diagnosis_sequences],
      service_date: line.service_date,
      quantity: line.quantity,
      unit_amount: line.unit_amount,
      amount,
    };
  });
  return { lineItems, amountTotal };
}
