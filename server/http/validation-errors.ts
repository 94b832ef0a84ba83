/**
 * Turns Ajv's errors into one `ApiError` a client can act on: which parameter, and whether it
 * was unknown, missing or invalid. Messages are built here from the schema (names, formats,
 * limits), never from the submitted value, so no PHI can reach them.
 */
import type { ErrorObject } from 'ajv';
import { MAX_DATE_TIME_SECONDS } from '../../contract/date-time.js';
import { parsePointer } from '../../contract/pointer.js';
import { ApiError, isApiError } from '../errors.js';
import { bracketPath } from './value-walk.js';

/** Which part of the request a validator checked; decides how a parameter name is written. */
export type RequestPart = 'body' | 'querystring' | 'params' | 'headers';

const PART_NOUN: Record<RequestPart, string> = {
  body: 'request body',
  querystring: 'query string',
  params: 'path',
  headers: 'headers',
};

/**
 * The parameter's name as the spec writes it: bracket notation from the root for bodies and
 * query strings (`name[family]`, `line_items[0][procedure_code]`, `created[gt]`), the path
 * parameter's name (`id`), the header's spelling in the spec (`Idempotency-Key`).
 */
export function paramName(
  part: RequestPart,
  segments: readonly string[],
  headerNames?: ReadonlyMap<string, string>,
): string | null {
  const first = segments[0];
  if (first === undefined) return null;
  if (part === 'headers') return headerNames?.get(first) ?? first;
  return bracketPath(segments);
}

function describeType(type: unknown): string {
  const list = Array.isArray(type) ? type : [type];
  const words = list.map((t) =>
    t === 'integer' ? 'an integer' : t === 'array' || t === 'object' ? `an ${t}` : `a ${t}`,
  );
  return words.join(' or ').replace('a null', 'null');
}

const FORMAT_WORDS: Record<string, string> = {
  date: 'a date (YYYY-MM-DD)',
  'date-time': 'an RFC 3339 date-time',
  email: 'an email address',
  int32: 'an integer from -2147483648 to 2147483647',
  int64: `an integer from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`,
  uri: 'an absolute URI',
  url: 'an absolute URL',
  uuid: 'a UUID',
};

/** Why a value is invalid, from the failing keyword and the schema's own limits. */
function invalidReason(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return `must be ${describeType(p.type)}`;
    case 'format':
      return `must be ${FORMAT_WORDS[String(p.format)] ?? `in format ${String(p.format)}`}`;
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'minLength':
      return `must be at least ${String(p.limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters long`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${String(p.comparison)} ${String(p.limit)}`;
    case 'multipleOf':
      return `must be a multiple of ${String(p.multipleOf)}`;
    case 'pattern':
      return 'does not have the expected format';
    case 'minItems':
      return `must have at least ${String(p.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    case 'uniqueItems':
      return 'must not contain duplicate items';
    case 'minProperties':
      return `must have at least ${String(p.limit)} keys`;
    case 'maxProperties':
      return `must have at most ${String(p.limit)} keys`;
    case 'oneOf':
    case 'anyOf':
      return 'does not match any of the accepted shapes';
    default:
      return 'is invalid';
  }
}

/**
 * A time the client wrote in the wrong form: the message names the form expected, with an
 * example, so a client sending another version's form sees what this version takes.
 * `namingVersion` adds the version the request was judged by.
 */
export class TimeFormatError extends ApiError {
  constructor(
    readonly field: string,
    readonly rule: string,
  ) {
    super('parameter_invalid', { param: field, message: `${field} must be ${rule}.` });
  }
}

/** The form a time schema asks for, or undefined for any other schema. */
function timeRule(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as { format?: unknown; type?: unknown; maximum?: unknown };
  if (s.format === 'date-time')
    return 'an RFC 3339 date-time with an offset, e.g. 2026-12-04T10:00:00Z';
  // The unix seconds of versions before 2026-12-01: an integer bounded by the last instant an
  // RFC 3339 date-time can write.
  if (s.type === 'integer' && s.maximum === MAX_DATE_TIME_SECONDS) {
    return `a unix time in seconds, an integer from 0 to ${MAX_DATE_TIME_SECONDS}, e.g. 1793577600`;
  }
  return undefined;
}

/** A validation error naming the version it was judged by (time errors only). */
export function namingVersion(error: unknown, version: string): unknown {
  if (!(error instanceof TimeFormatError) || !isApiError(error)) return error;
  return new ApiError('parameter_invalid', {
    param: error.field,
    message: `${error.field} must be ${error.rule} (PatientCare-Version ${version}).`,
  });
}

/** Keywords that judge a value's form, not its range: a range error keeps its limit. */
const FORM_KEYWORDS = new Set(['type', 'format', 'pattern']);

type Kind = 'unknown' | 'missing' | 'invalid';

function kindOf(error: ErrorObject): Kind {
  if (error.keyword === 'additionalProperties') return 'unknown';
  if (error.keyword === 'required') return 'missing';
  return 'invalid';
}

// An unknown name usually reveals a typo that also explains a "missing" error, so it is the
// more useful one to report; a wrong value comes last.
const KIND_RANK: Record<Kind, number> = { unknown: 0, missing: 1, invalid: 2 };

function depth(error: ErrorObject): number {
  return error.instancePath === '' ? 0 : error.instancePath.split('/').length - 1;
}

/**
 * Whether `a` is the better error to report than `b`: by kind, then the deeper one (inside a
 * nullable `anyOf: [{object}, {null}]`, the object branch's specific complaint beats "must be
 * null" about the parent).
 */
function outranks(a: ErrorObject, b: ErrorObject): boolean {
  const byKind = KIND_RANK[kindOf(a)] - KIND_RANK[kindOf(b)];
  if (byKind !== 0) return byKind < 0;
  return depth(a) > depth(b);
}

/**
 * Nullable values fail as "must be string" and "must be null" from two `anyOf` branches; the
 * client needs both in one message ("must be a string or null").
 */
function mergeTypeErrors(best: ErrorObject, pool: readonly ErrorObject[]): ErrorObject {
  if (best.keyword !== 'type') return best;
  const types = new Set<unknown>();
  for (const e of pool) {
    if (e.keyword !== 'type' || e.instancePath !== best.instancePath) continue;
    const t = (e.params as { type?: unknown }).type;
    for (const one of Array.isArray(t) ? t : [t]) types.add(one);
  }
  return { ...best, params: { type: [...types] } };
}

/** The segments of the parameter an error is about (the property for unknown/missing). */
function errorSegments(error: ErrorObject): string[] {
  const base = parsePointer(error.instancePath);
  const p = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') return [...base, String(p.additionalProperty)];
  if (error.keyword === 'required') return [...base, String(p.missingProperty)];
  return base;
}

/**
 * Picks the most useful of Ajv's errors and turns it into an `ApiError`. A failed
 * `oneOf`/`anyOf` is reported through its branches' errors when there are any, since
 * "matches no shape" tells the client less than the field that is wrong.
 */
export function toValidationError(
  errors: readonly ErrorObject[],
  part: RequestPart,
  headerNames?: ReadonlyMap<string, string>,
): ApiError {
  const specific = errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf');
  const pool = specific.length > 0 ? specific : errors;
  let best = pool[0];
  for (const error of pool) {
    if (best === undefined || outranks(error, best)) best = error;
  }
  if (best === undefined) return new ApiError('parameter_invalid');
  best = mergeTypeErrors(best, pool);
  const kind = kindOf(best);
  const param = paramName(part, errorSegments(best), headerNames);
  if (param === null) {
    return new ApiError('parameter_invalid', {
      message: `The ${PART_NOUN[part]} ${invalidReason(best)}.`,
    });
  }
  if (kind === 'unknown') {
    return new ApiError('parameter_unknown', {
      param,
      message: `Received unknown parameter: ${param}.`,
    });
  }
  if (kind === 'missing') {
    return new ApiError('parameter_missing', {
      param,
      message: `Missing required parameter: ${param}.`,
    });
  }
  // Ajv keeps the failing schema (`verbose`); a time in the wrong form says which form.
  const rule = pool
    .filter((e) => e.instancePath === best.instancePath && FORM_KEYWORDS.has(e.keyword))
    .map((e) => timeRule(e.parentSchema))
    .find((found) => found !== undefined);
  if (rule !== undefined) return new TimeFormatError(param, rule);
  return new ApiError('parameter_invalid', {
    param,
    message: `Invalid value for ${param}: ${invalidReason(best)}.`,
  });
}
