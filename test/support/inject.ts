/**
 * The one way service tests send requests: `app.inject()`, then the response is checked
 * against the spec before the test sees it — the body against the operation's response schema
 * for that status, and the headers every response must carry. A response the spec does not
 * describe fails the test, so no test can skip the check.
 *
 * @example
 * const request = await createInjector(app);
 * const res = await request({ method: 'GET', url: '/v1/patients', key: secret });
 * expect(res.status).toBe(200);
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import type { HttpMethod, JsonSchema, RouteDefinition } from '../../contract/route-types.js';
import type { ComponentSchemas } from '../../server/http/validation.js';

type FormatsPlugin = (ajv: Ajv) => Ajv;
const formatsModule = addFormatsModule as unknown as FormatsPlugin & { default?: FormatsPlugin };
const addFormats: FormatsPlugin = formatsModule.default ?? formatsModule;

/** A route table: the generated one by default, or a test's own. */
export interface RouteTable {
  readonly routes: readonly RouteDefinition[];
  readonly componentSchemas: ComponentSchemas;
}

/** A request to send. */
export interface InjectRequest {
  method: HttpMethod;
  url: string;
  /** API key secret, sent as `Authorization: Bearer <key>`. */
  key?: string;
  /** A JSON body (serialised, with `Content-Type: application/json`). */
  body?: unknown;
  /** Raw payload instead of `body`, sent as is (for malformed-input tests). */
  payload?: string | Buffer;
  headers?: Record<string, string>;
  /** Sets `Idempotency-Key`. */
  idempotencyKey?: string;
  /** The client address the socket reports (for allowlist tests). */
  remoteAddress?: string;
}

/** A checked response. */
// biome-ignore lint/suspicious/noExplicitAny: tests read JSON fields freely; the body was already checked against the spec's schema.
export interface CheckedResponse<Body = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Body;
  text: string;
  /** The operation the request matched, or null (unknown route). */
  operationId: string | null;
}

const REQUEST_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;
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

  constructor(table: RouteTable) {
    this.#ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true });
    addFormats(this.#ajv);
    const components = componentList(table.componentSchemas);
    for (const schema of components) this.#ajv.addSchema(schema as object);
    const error = components.find((s) => /(^|[:/])Error$/.test(String(s.$id)));
    if (error === undefined) throw new Error('route table has no Error component schema');
    this.#errorSchema = { $ref: error.$id };
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
    const path = url.split('?')[0]!;
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

  /** Throws unless the response is one the spec describes. */
  check(method: string, url: string, response: Omit<CheckedResponse, 'operationId'>): void {
    const route = this.match(method, url);
    const where = `${method} ${url.split('?')[0]} → ${response.status}`;
    const fail = (why: string): never => {
      throw new Error(`Response does not match the spec (${where}): ${why}\n${response.text}`);
    };
    const header = (name: string) => {
      const value = response.headers[name.toLowerCase()];
      return value === undefined ? undefined : String(value);
    };

    const requestId = header('Request-Id');
    if (requestId === undefined || !REQUEST_ID.test(requestId)) fail('missing or bad Request-Id');
    for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
      const value = header(name);
      if (value === undefined || !INTEGER.test(value)) fail(`missing or bad ${name}`);
    }
    if (header('PatientCare-Version') === undefined) fail('missing PatientCare-Version');
    if (response.status === 429) {
      const retry = header('Retry-After');
      if (retry === undefined || !INTEGER.test(retry) || Number(retry) < 1) fail('bad Retry-After');
    }

    let schema: JsonSchema | undefined;
    if (route === undefined) {
      if (response.status !== 404 && response.status !== 401 && response.status !== 429) {
        fail('no route matches, yet the answer is not 401, 404 or 429');
      }
      schema = this.#errorSchema;
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
    if (!contentType.startsWith('application/json')) fail(`content-type ${contentType}`);
    const validate = this.#validator(schema!);
    if (!validate(response.body)) {
      fail(`body invalid: ${this.#ajv.errorsText(validate.errors, { separator: '; ' })}`);
    }
    if (response.status >= 400) {
      const id = (response.body as { error?: { request_id?: unknown } }).error?.request_id;
      if (id !== requestId) fail('error.request_id differs from the Request-Id header');
    }
  }
}

let generated: Promise<RouteTable> | undefined;

/** The generated route table (`generated/routes.ts`). */
export function generatedTable(): Promise<RouteTable> {
  generated ??= import('../../generated/routes.js').then((m) => ({
    routes: m.routes,
    componentSchemas: m.componentSchemas,
  }));
  return generated;
}

/** A request function bound to `app` that checks every response against `table`. */
// biome-ignore lint/suspicious/noExplicitAny: as for `CheckedResponse`.
export type Inject = <Body = any>(request: InjectRequest) => Promise<CheckedResponse<Body>>;

/**
 * Returns the request function for `app`. `table` defaults to the generated route table; pass
 * the one the app was built with when it is a test's own.
 */
export async function createInjector(app: FastifyInstance, table?: RouteTable): Promise<Inject> {
  const checker = new ResponseChecker(table ?? (await generatedTable()));
  return async <Body>(request: InjectRequest): Promise<CheckedResponse<Body>> => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.key !== undefined) headers.authorization = `Bearer ${request.key}`;
    if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
    let payload = request.payload;
    if (request.body !== undefined) {
      payload = JSON.stringify(request.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.inject({
      method: request.method,
      url: request.url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
      ...(request.remoteAddress !== undefined ? { remoteAddress: request.remoteAddress } : {}),
    });
    let body: unknown;
    try {
      body = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      throw new Error(`Response is not JSON (${request.method} ${request.url}): ${res.body}`);
    }
    const response = { status: res.statusCode, headers: res.headers, body, text: res.body };
    checker.check(request.method, request.url, response);
    return {
      ...response,
      body: body as Body,
      operationId: checker.match(request.method, request.url)?.operationId ?? null,
    };
  };
}
