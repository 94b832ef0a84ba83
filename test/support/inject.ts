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
import type { FastifyInstance } from 'fastify';
import type { HttpMethod } from '../../contract/route-types.js';
import { versions } from '../../server/versioning/index.js';
import { ResponseChecker, type RouteTable } from '../../tooling/fuzz/response-checker.js';

export type { RouteTable };

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

let generated: Promise<RouteTable> | undefined;

/** The generated route table (`generated/routes.ts`). */
export function generatedTable(): Promise<RouteTable> {
  generated ??= import('../../generated/routes.js').then((m) => ({
    routes: m.routes,
    componentSchemas: m.componentSchemas,
  }));
  return generated;
}

/**
 * The version the suites written for it send by default: they were written against
 * 2026-11-01 and keep passing pinned to it, beside the suites of newer versions
 * (`test/versions/`), which send their version in `headers`.
 */
export const DEFAULT_TEST_VERSION = '2026-11-01';

const versionTables = new Map<string, Promise<RouteTable>>();

/**
 * The route table of one dated version: the latest's is `generated/`, an older one's is
 * `generated/versions/DATE/` (`npm run generate -- --version DATE`).
 */
export function versionTable(version: string): Promise<RouteTable> {
  if (version === versions.latest) return generatedTable();
  let table = versionTables.get(version);
  if (table === undefined) {
    const path = `../../generated/versions/${version}/routes.js`;
    table = import(/* @vite-ignore */ path).then((m: RouteTable) => ({
      routes: m.routes,
      componentSchemas: m.componentSchemas,
    }));
    versionTables.set(version, table);
  }
  return table;
}

/** A request function bound to `app` that checks every response against `table`. */
// biome-ignore lint/suspicious/noExplicitAny: as for `CheckedResponse`.
export type Inject = <Body = any>(request: InjectRequest) => Promise<CheckedResponse<Body>>;

/**
 * Returns the request function for `app`. `table` defaults to the generated route table; pass
 * the one the app was built with when it is a test's own.
 */
export async function createInjector(app: FastifyInstance, table?: RouteTable): Promise<Inject> {
  const checkers = new Map<string, ResponseChecker>();
  const own = table === undefined ? undefined : new ResponseChecker(table);
  const checkerFor = async (version: string): Promise<ResponseChecker> => {
    if (own !== undefined) return own;
    let checker = checkers.get(version);
    if (checker === undefined) {
      checker = new ResponseChecker(await versionTable(version));
      checkers.set(version, checker);
    }
    return checker;
  };
  return async <Body>(request: InjectRequest): Promise<CheckedResponse<Body>> => {
    const headers: Record<string, string> = { ...request.headers };
    const sent = Object.keys(headers).find((name) => name.toLowerCase() === 'patientcare-version');
    if (sent === undefined) headers['patientcare-version'] = DEFAULT_TEST_VERSION;
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
    // Checked against the document of the version the server says it answered in.
    const answered = res.headers['patientcare-version'];
    const checker = await checkerFor(
      typeof answered === 'string' && versions.supported.includes(answered)
        ? answered
        : versions.latest,
    );
    checker.check(request.method, request.url, response);
    return {
      ...response,
      body: body as Body,
      operationId: checker.match(request.method, request.url)?.operationId ?? null,
    };
  };
}
