/**
 * Request validation from the route table's JSON Schemas (rules: spec/openapi.yaml "Basics" and
 * "Text and numbers"): the one place every request's parameters and body are judged, in this
 * order — schema (unknown, missing, invalid), then the values no database can store as sent
 * (`storable-values.ts`).
 *
 * Two Ajv instances, neither coercing: bodies are strict (nothing removed, no defaults filled
 * in, so an update never gains fields the client did not send); path, query and header
 * parameters arrive as text, are read as their schemas say by `parameter-text.ts`, and get
 * defaults (`limit` = 10). Every validator is compiled once, when the routes are registered.
 */
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { ajvSchemaLookup, createAjv } from '../../contract/ajv.js';
import { toPointer } from '../../contract/pointer.js';
import type { JsonSchema, RouteDefinition } from '../../contract/route-types.js';
import {
  type BoundViolation,
  findBoundViolation,
  schemaBounds,
} from '../../contract/schema-bounds.js';
import { followSchemaRef } from '../../contract/schema-refs.js';
import { ApiError } from '../errors.js';
import { compileParameterReader } from './parameter-text.js';
import { checkStorable } from './storable-values.js';
import { type RequestPart, toValidationError } from './validation-errors.js';

/** The component schemas, as `generated/routes.ts` exports them (array or map, each with `$id`). */
export type ComponentSchemas = readonly JsonSchema[] | Readonly<Record<string, JsonSchema>>;

/** The two Ajv instances, sharing the component schemas. */
export interface Validators {
  /** Bodies: no defaults. */
  readonly strict: Ajv;
  /** Parameters (already read from text): defaults filled in. */
  readonly parameters: Ajv;
}

const COMMON = {
  // A hand-written route table (test fixtures) may carry keywords Ajv does not know
  // (`example`, `discriminator`, `x-…`); ignore them.
  strict: false,
  // Error messages are built by `toValidationError`; Ajv's own text is not needed.
  messages: false,
  // The failing schema rides on each error (only on failure), so a time in the wrong form is
  // told the form expected (`validation-errors.ts`).
  verbose: true,
} as const;

function schemaList(components: ComponentSchemas): JsonSchema[] {
  return Array.isArray(components)
    ? [...(components as readonly JsonSchema[])]
    : Object.values(components as Record<string, JsonSchema>);
}

/** Builds the two Ajv instances and registers every component schema with both. */
export function createValidators(components: ComponentSchemas): Validators {
  const schemas = schemaList(components);
  const strict = createAjv({ ...COMMON, schemas });
  const parameters = createAjv({ ...COMMON, useDefaults: true, schemas });
  return { strict, parameters };
}

/** The parts of a request a route validator checks; query and params are coerced in place. */
export interface RequestParts {
  params: unknown;
  query: unknown;
  body: unknown;
  headers: Record<string, unknown>;
}

/** Validates one request; throws an `ApiError` (400) on the first problem worth reporting. */
export type RouteValidator = (parts: RequestParts) => void;

function resolveRefs(ajv: Ajv, schema: JsonSchema): JsonSchema {
  return followSchemaRef(schema, ajvSchemaLookup(ajv));
}

/**
 * A body validator. When the body schema is a top-level `oneOf`/`anyOf` (createPatient: a
 * patient or `{token}`), each branch is also compiled, and a failure is explained by the one
 * branch the body was meant for, instead of mixing both branches' complaints: the branch whose
 * own fields (fields no other branch has) the body uses — `token` → the token branch,
 * `name` → the patient branch — else the branch the body came closest to (fewest errors).
 */
function compileBody(ajv: Ajv, schema: JsonSchema): (body: unknown) => ErrorObject[] | null {
  const validate = ajv.compile(schema as object);
  const bounds = schemaBounds(schema, ajvSchemaLookup(ajv));
  const resolved = resolveRefs(ajv, schema);
  const branches = (resolved.oneOf ?? resolved.anyOf) as JsonSchema[] | undefined;
  const branchValidators: ValidateFunction[] = Array.isArray(branches)
    ? branches.map((b) => ajv.compile(b as object))
    : [];
  const branchFields = Array.isArray(branches)
    ? branches.map((b) => Object.keys((resolveRefs(ajv, b).properties ?? {}) as object))
    : [];
  return (body) => {
    // Over a bound the schema sets: refused on the bound, before Ajv's costlier checks
    // (docs/design.md#validation-cost).
    const over = findBoundViolation(body, bounds);
    if (over !== undefined) return [boundError(over)];
    if (validate(body)) return null;
    rejectMixedBranches(branchFields, body);
    let best: readonly ErrorObject[] = takeErrors(validate);
    const meant = intendedBranch(branchFields, body);
    const chosen = meant === undefined ? undefined : branchValidators[meant];
    if (chosen !== undefined) {
      if (!chosen(body)) return takeErrors(chosen);
    } else if (branchValidators.length > 0) {
      let fewest = Number.POSITIVE_INFINITY;
      for (const branch of branchValidators) {
        if (branch(body)) continue;
        const errs = takeErrors(branch);
        if (errs.length < fewest) {
          fewest = errs.length;
          best = errs;
        }
      }
    }
    return [...best];
  };
}

/** A broken bound as the error Ajv would have given for it (same message, same `param`). */
function boundError(over: BoundViolation): ErrorObject {
  return {
    keyword: over.keyword,
    instancePath: toPointer(over.path).slice(1),
    schemaPath: '',
    params:
      over.keyword === 'additionalProperties'
        ? { additionalProperty: over.key }
        : { limit: over.limit },
  };
}

/**
 * A validator's errors, taken off it: Ajv keeps the last call's errors on the function, and
 * with `verbose` each holds the failing part of the body (`data`), so a validator left holding
 * them would keep its last refused body alive until its next call (docs/design.md#validation-cost).
 */
function takeErrors(validate: ValidateFunction): ErrorObject[] {
  const errors = validate.errors ?? [];
  validate.errors = null;
  return errors;
}

/** Fields of each branch that no other branch has. */
function ownedFields(branchFields: readonly string[][], body: object): string[][] {
  const keys = Object.keys(body);
  return branchFields.map((fields, i) =>
    keys.filter(
      (k) => fields.includes(k) && branchFields.every((other, j) => j === i || !other.includes(k)),
    ),
  );
}

/** The index of the one branch whose own fields the body uses, if exactly one. */
function intendedBranch(branchFields: readonly string[][], body: unknown): number | undefined {
  if (branchFields.length < 2 || body === null || typeof body !== 'object') return undefined;
  const used = ownedFields(branchFields, body)
    .map((fields, i) => (fields.length > 0 ? i : -1))
    .filter((i) => i >= 0);
  return used.length === 1 ? used[0] : undefined;
}

/**
 * A body that uses fields only one `oneOf` branch has together with fields only another has
 * (createPatient: `token` with patient fields) is two requests in one: 400
 * `parameters_exclusive` naming both, rather than "unknown field" from whichever branch won.
 */
function rejectMixedBranches(branchFields: readonly string[][], body: unknown): void {
  if (branchFields.length < 2 || body === null || typeof body !== 'object') return;
  const used = ownedFields(branchFields, body)
    .map((fields, i) => ({ fields, size: branchFields[i]?.length ?? 0 }))
    .filter((b) => b.fields.length > 0);
  if (used.length < 2) return;
  // Name the field of the smaller alternative (`token`), which is the one to drop or send alone.
  used.sort((a, b) => a.size - b.size);
  const [first, second] = used;
  if (first === undefined || second === undefined) return;
  const [alone, others] = [first.fields[0] ?? '', second.fields];
  throw new ApiError('parameters_exclusive', {
    param: alone,
    message: `${alone} cannot be combined with ${others.join(', ')}; send one or the other.`,
  });
}

/** Lower-cases header names in a header schema (Node gives header names in lower case). */
function lowerCaseHeaderSchema(schema: JsonSchema): {
  schema: JsonSchema;
  names: Map<string, string>;
} {
  const names = new Map<string, string>();
  const properties: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(
    (schema.properties ?? {}) as Record<string, unknown>,
  )) {
    names.set(name.toLowerCase(), name);
    properties[name.toLowerCase()] = value;
  }
  const required = Array.isArray(schema.required)
    ? (schema.required as string[]).map((n) => n.toLowerCase())
    : undefined;
  // Requests carry many headers the spec does not list; never reject those.
  const { additionalProperties: _ignored, ...rest } = schema;
  return {
    schema: { ...rest, properties, ...(required ? { required } : {}) },
    names,
  };
}

function check(
  validate: ValidateFunction,
  data: unknown,
  part: RequestPart,
  headerNames?: ReadonlyMap<string, string>,
): void {
  if (!validate(data)) throw toValidationError(takeErrors(validate), part, headerNames);
}

function rejectBothCursors(values: unknown): void {
  if (values === null || typeof values !== 'object') return;
  const v = values as Record<string, unknown>;
  if (v.starting_after !== undefined && v.ending_before !== undefined) {
    throw new ApiError('parameters_exclusive', {
      param: 'ending_before',
      message: 'starting_after and ending_before cannot be used together; pass only one.',
    });
  }
}

function hasKeys(value: unknown): boolean {
  return value !== null && typeof value === 'object' && Object.keys(value).length > 0;
}

/** Compiles the validator for one route (once, at registration). */
export function compileRouteValidator(
  route: RouteDefinition,
  validators: Validators,
): RouteValidator {
  const { schemas } = route;
  const ajv = validators.parameters;
  const params = schemas.params ? ajv.compile(schemas.params as object) : null;
  const readParams = schemas.params ? compileParameterReader(ajv, schemas.params) : null;
  const query = schemas.querystring ? ajv.compile(schemas.querystring as object) : null;
  const readQuery = schemas.querystring ? compileParameterReader(ajv, schemas.querystring) : null;
  const header = schemas.headers ? lowerCaseHeaderSchema(schemas.headers) : null;
  const headers = header ? ajv.compile(header.schema as object) : null;
  const readHeaders = header ? compileParameterReader(ajv, header.schema) : null;
  // `param` names a header as the spec spells it (`Idempotency-Key`), not as Node lower-cases it.
  const headerNames = new Map(header?.names);
  for (const p of route.parameters ?? []) {
    if (p.in === 'header') headerNames.set(p.name.toLowerCase(), p.name);
  }
  const body = schemas.body ? compileBody(validators.strict, schemas.body) : null;

  return (parts) => {
    readParams?.(parts.params);
    readQuery?.(parts.query);
    readHeaders?.(parts.headers);
    if (params) check(params, parts.params, 'params');
    if (query) check(query, parts.query, 'querystring');
    else if (hasKeys(parts.query)) {
      const name = Object.keys(parts.query as object)[0] ?? '';
      throw new ApiError('parameter_unknown', {
        param: name,
        message: `Received unknown parameter: ${name}.`,
      });
    }
    rejectBothCursors(parts.query);
    if (headers) check(headers, parts.headers, 'headers', headerNames);
    if (body) {
      const errors = body(parts.body);
      if (errors) throw toValidationError(errors, 'body');
      rejectBothCursors(parts.body);
    } else if (hasKeys(parts.body)) {
      const name = Object.keys(parts.body as object)[0] ?? '';
      throw new ApiError('parameter_unknown', {
        param: name,
        message: `Received unknown parameter: ${name}.`,
      });
    }
    checkStorable(parts.params);
    checkStorable(parts.query);
    checkStorable(parts.body);
  };
}
