/**
 * `npm run dev` checks every answer against its version's document: the response schema the
 * route table of the request's version lists for that operation and status. A mismatch is one
 * warn line naming the operation, the status, the version and the failing fields as JSON
 * pointers, never a value (a body may hold PHI), so a handler that drifted from the spec shows
 * in the terminal at the request that exposed it. The answer itself is sent unchanged.
 *
 * Only the dev host (`swap-host.ts`) passes this to `buildApp`; `npm start` and a build never
 * do, and no setting turns it on there: the check compiles and runs a validator per answer.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createAjv } from '../../contract/ajv.js';
import type { JsonSchema, RouteDefinition } from '../../contract/route-types.js';
import type { ResponseCheck } from '../../server/app.js';
import type { VersionTable, VersionTableSource } from '../../server/http/version-step.js';
import { versions } from '../../server/versioning/index.js';

/** At most this many fields are named on a line; the rest are counted. */
const FIELDS = 5;

/** The validators of one table, compiled on first use. */
class TableCheck {
  readonly #ajv;
  readonly #routes: ReadonlyMap<string, RouteDefinition>;
  readonly #validators = new Map<JsonSchema, ValidateFunction>();

  constructor(table: VersionTable) {
    const components = Array.isArray(table.componentSchemas)
      ? (table.componentSchemas as readonly JsonSchema[])
      : Object.values(table.componentSchemas as Record<string, JsonSchema>);
    this.#ajv = createAjv({ strict: false, schemas: components });
    this.#routes = new Map(table.routes.map((route) => [route.operationId, route]));
  }

  has(operationId: string): boolean {
    return this.#routes.has(operationId);
  }

  /** The failing fields of `body` as `operationId` answered it with `status`; [] when it matches. */
  failures(operationId: string, status: number, body: unknown): string[] {
    const listed = this.#routes.get(operationId)?.schemas.response ?? {};
    const text = String(status);
    const schema =
      listed[text] ??
      Object.entries(listed).find(([code]) => code.toUpperCase() === `${text[0]}XX`)?.[1] ??
      listed.default;
    if (schema === undefined) return [`status ${text} is not listed`];
    let validate = this.#validators.get(schema);
    if (validate === undefined) {
      validate = this.#ajv.compile(schema as object);
      this.#validators.set(schema, validate);
    }
    if (validate(body)) return [];
    return [...new Set((validate.errors ?? []).map(fieldOf))];
  }
}

/** `/data/0/name required`: where the error is (the missing or extra property included). */
function fieldOf(error: ErrorObject): string {
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown };
  const name = params.missingProperty ?? params.additionalProperty;
  const at = typeof name === 'string' ? `${error.instancePath}/${name}` : error.instancePath;
  return `${at || '/'} ${error.keyword}`;
}

function header(reply: FastifyReply, name: string): string | undefined {
  const value = reply.getHeader(name);
  return typeof value === 'string' ? value : undefined;
}

/**
 * The dev host's response check: `latest` is the table the app serves; `older(version)` the
 * table of an older version (absent: answers in an older version are not checked).
 */
export function devResponseCheck(latest: VersionTable, older?: VersionTableSource): ResponseCheck {
  const current = new TableCheck(latest);
  const versionChecks = new Map<string, Promise<TableCheck>>();
  const checkOf = (version: string | null): Promise<TableCheck> | undefined => {
    if (version === null || version === versions.latest) return Promise.resolve(current);
    let check = versionChecks.get(version);
    if (check === undefined && older !== undefined) {
      check = older(version).then((table) => new TableCheck(table));
      versionChecks.set(version, check);
    }
    return check;
  };
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const operationId = (request.routeOptions.config as { operationId?: unknown }).operationId;
    if (typeof operationId !== 'string' || reply.statusCode === 204) return;
    const type = header(reply, 'content-type') ?? '';
    if (!/^application\/(fhir\+)?json/.test(type)) return;
    const text =
      typeof payload === 'string'
        ? payload
        : Buffer.isBuffer(payload)
          ? String(payload)
          : undefined;
    if (text === undefined) return;
    const version = request.apiVersion;
    try {
      // The FHIR face has no dated versions: its operations are judged by the served table.
      const found = (await checkOf(version)) ?? current;
      const table = found.has(operationId) ? found : current;
      const fields = table.failures(operationId, reply.statusCode, JSON.parse(text));
      if (fields.length === 0) return;
      const named = fields.slice(0, FIELDS).join(', ');
      const more = fields.length > FIELDS ? ` (and ${fields.length - FIELDS} more)` : '';
      request.log.warn(
        { operationId, status: reply.statusCode, version, fields: fields.slice(0, FIELDS) },
        `response of ${operationId} (${reply.statusCode}) does not match the ${version ?? 'served'} document: ${named}${more}`,
      );
    } catch (error) {
      // The error's name only: a JSON.parse message quotes the body.
      request.log.warn(
        { operationId, status: reply.statusCode, version },
        `response of ${operationId} (${reply.statusCode}) could not be checked against its document: ${error instanceof Error ? error.name : 'error'}`,
      );
    }
  };
}
