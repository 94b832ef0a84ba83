/**
 * Checks an answer against the spec: the body against the operation's response schema for
 * that status, and the headers every response must carry. Shared by the contract fuzzer and
 * the service tests' injector, so both judge a response the same way. Under `/fhir/R4` the
 * answers are FHIR's: `application/fhir+json`, errors an `OperationOutcome` (never the
 * envelope), `304` without a body.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import { createAjv } from '../../contract/ajv.js';
import type { JsonSchema, RouteDefinition } from '../../contract/route-types.js';
import type { ComponentSchemas } from '../../server/http/validation.js';

/** The routes and component schemas answers are checked against. */
export interface RouteTable {
  readonly routes: readonly RouteDefinition[];
  readonly componentSchemas: ComponentSchemas;
}

/** An answer to check: what the wire (or `app.inject()`) gave back, with the body parsed. */
export interface CheckedAnswer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: unknown;
  text: string;
}

const REQUEST_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;
const FHIR_BASE = '/fhir/R4/';
const INTEGER = /^\d+$/;

function componentList(components: ComponentSchemas): JsonSchema[] {
  return Array.isArray(components)
    ? [...(components as readonly JsonSchema[])]
    : Object.values(components as Record<string, JsonSchema>);
}

function pathPattern(url: string): RegExp {
  const escaped = url
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}$`);
}

/** Checks responses against a route table; throws an `Error` describing any mismatch. */
export class ResponseChecker {
  readonly #ajv: Ajv;
  readonly #routes: { route: RouteDefinition; pattern: RegExp; params: number }[];
  readonly #validators = new Map<JsonSchema, ValidateFunction>();
  readonly #errorSchema: JsonSchema;
  /** FHIR's error body, when the table has FHIR routes. */
  readonly #outcomeSchema: JsonSchema | undefined;

  constructor(table: RouteTable) {
    const components = componentList(table.componentSchemas);
    this.#ajv = createAjv({ strict: false, schemas: components });
    const error = components.find((s) => /(^|[:/])Error$/.test(String(s.$id)));
    if (error === undefined) throw new Error('route table has no Error component schema');
    this.#errorSchema = { $ref: error.$id };
    const outcome = components.find((s) => /(^|[:/])OperationOutcome$/.test(String(s.$id)));
    this.#outcomeSchema = outcome === undefined ? undefined : { $ref: outcome.$id };
    // Static segments win over parameters (`/v1/patients/search` before `/v1/patients/:id`).
    this.#routes = table.routes
      .map((route) => ({
        route,
        pattern: pathPattern(route.url),
        params: route.url.split('/').filter((p) => p.startsWith(':')).length,
      }))
      .sort((a, b) => a.params - b.params);
  }

  /** The route a request goes to, or undefined. */
  match(method: string, url: string): RouteDefinition | undefined {
    const path = url.split('?')[0] ?? '';
    return this.#routes.find((r) => r.route.method === method && r.pattern.test(path))?.route;
  }

  #validator(schema: JsonSchema): ValidateFunction {
    let validate = this.#validators.get(schema);
    if (validate === undefined) {
      validate = this.#ajv.compile(schema as object);
      this.#validators.set(schema, validate);
    }
    return validate;
  }

  /**
   * Throws unless `body` is this table's error envelope: for answers `check` cannot place (a
   * refused CORS preflight has no operation; Node's parser refusals carry no `RateLimit-*`).
   */
  checkErrorBody(body: unknown): void {
    const validate = this.#validator(this.#errorSchema);
    if (!validate(body)) {
      throw new Error(
        `Error body does not match the spec: ${this.#ajv.errorsText(validate.errors, { separator: '; ' })}`,
      );
    }
  }

  /** Throws unless the response is one the spec describes. */
  check(method: string, url: string, response: CheckedAnswer): void {
    const route = this.match(method, url);
    const where = `${method} ${url.split('?')[0]} → ${response.status}`;
    // Annotated, so a call narrows like a throw does.
    const fail: (why: string) => never = (why) => {
      throw new Error(`Response does not match the spec (${where}): ${why}\n${response.text}`);
    };
    const header = (name: string) => {
      const value = response.headers[name.toLowerCase()];
      return value === undefined ? undefined : String(value);
    };

    const requestId = header('Request-Id');
    if (requestId === undefined || !REQUEST_ID.test(requestId)) fail('missing or bad Request-Id');
    // A 503 may come from a bucket that could not be read (the database is unreachable): it
    // has no figures to report, and says when to come back in Retry-After instead.
    for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
      const value = header(name);
      if (response.status === 503 && value === undefined) continue;
      if (value === undefined || !INTEGER.test(value)) fail(`missing or bad ${name}`);
    }
    if (header('PatientCare-Version') === undefined) fail('missing PatientCare-Version');
    if (
      response.status === 429 ||
      (response.status === 503 && header('Retry-After') !== undefined)
    ) {
      const retry = header('Retry-After');
      if (retry === undefined || !INTEGER.test(retry) || Number(retry) < 1) fail('bad Retry-After');
    }

    const fhir = url.startsWith(FHIR_BASE) && this.#outcomeSchema !== undefined;
    let schema: JsonSchema | undefined;
    if (route === undefined) {
      if (response.status !== 404 && response.status !== 401 && response.status !== 429) {
        fail('no route matches, yet the answer is not 401, 404 or 429');
      }
      schema = fhir ? this.#outcomeSchema : this.#errorSchema;
    } else if (fhir && response.status === 304 && route.method === 'GET') {
      // A conditional read's answer: no body (the route table keeps only responses with one).
      if (response.text !== '') fail('a body on a 304');
      return;
    } else {
      const text = String(response.status);
      const listed = route.schemas.response;
      schema =
        listed[text] ??
        Object.entries(listed).find(([s]) => s.toUpperCase() === `${text[0]}XX`)?.[1] ??
        listed.default;
      if (schema === undefined) fail(`status ${text} is not listed for ${route.operationId}`);
    }
    if (response.status === 204) return;
    const contentType = header('content-type') ?? '';
    const mediaType = fhir ? 'application/fhir+json' : 'application/json';
    if (!contentType.startsWith(mediaType)) fail(`content-type ${contentType}, not ${mediaType}`);
    const validate = this.#validator(schema);
    if (!validate(response.body)) {
      fail(`body invalid: ${this.#ajv.errorsText(validate.errors, { separator: '; ' })}`);
    }
    // Error envelopes carry the request id; a probe's 503 report (`/readyz`) is no envelope.
    if (fhir) return;
    if (response.status >= 400 && !(route?.public === true && response.status === 503)) {
      const id = (response.body as { error?: { request_id?: unknown } }).error?.request_id;
      if (id !== requestId) fail('error.request_id differs from the Request-Id header');
    }
  }
}
