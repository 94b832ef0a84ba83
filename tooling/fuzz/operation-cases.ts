/**
 * Every case of one operation as one fast-check arbitrary: about half valid requests, the
 * rest broken one way at a time in the body, the query, the path id, a header, or below the
 * schema (raw bodies).
 */
import fc from 'fast-check';
import type { RouteDefinition } from '../../contract/route-types.js';
import type { CaseBody, FuzzCase, KeyChoice } from './case-types.js';
import { fhirPatientOf, fhirReference, fhirType } from './fhir-values.js';
import { RAW_ABOVE } from './http.js';
import { HOSTILE_TEXT_KINDS, hostileText, parseJsonText, rawBodies } from './raw-bodies.js';
import {
  brokenHeaders,
  brokenPathIds,
  brokenQuery,
  validHeaders,
  validQuery,
  worldIds,
} from './request-parts.js';
import { arbitraryFor } from './schema-arbitrary.js';
import { brokenArbitrary } from './schema-mutations.js';
import type { Schema, SchemaRegistry } from './schema-registry.js';
import { BODY_RULES, Picks, patientFields, type Ruled } from './valid-rules.js';
import { FRESH, type FreshKind, unknownId, type World } from './world.js';

/** Operations whose path id should name an object made for the case alone. */
const FRESH_TARGET: Readonly<Record<string, FreshKind>> = { deleteWebhook: 'webhook' };

const DRAWS = fc.array(fc.nat(), { minLength: 8, maxLength: 8 });

interface Parts {
  id?: { value: string; unknown: boolean };
  query: string;
  headers: Record<string, string>;
  ruled?: Ruled;
}

function keyFor(route: RouteDefinition): KeyChoice {
  return route.keyKinds?.includes('secret') === false && route.keyKinds.includes('publishable')
    ? 'publishable'
    : 'secret';
}

function fill(route: RouteDefinition, id: string | undefined): string {
  return id === undefined ? route.path : route.path.replace('{id}', encodeURIComponent(id));
}

function idPrefixOf(route: RouteDefinition, registry: SchemaRegistry): string {
  const schema = ((route.schemas.params?.properties ?? {}) as Record<string, Schema>).id;
  const pattern = schema === undefined ? undefined : registry.resolve(schema).pattern;
  return (typeof pattern === 'string' && /^\^([a-z]+)_/.exec(pattern)?.[1]) || 'x';
}

/** Valid path id: a real one, a fresh one for updates and deletes, or a random one (404). */
function validId(
  route: RouteDefinition,
  registry: SchemaRegistry,
  world: World,
  picks: Picks,
  fresh: FreshKind | undefined,
): { value: string; unknown: boolean } | undefined {
  if (route.schemas.params === undefined) return undefined;
  const fhir = fhirType(route);
  if (fhir !== undefined) {
    const found = fhirReference(fhir, world, picks);
    return { value: found.id, unknown: found.unknown };
  }
  const prefix = idPrefixOf(route, registry);
  if (picks.oneIn(6)) return { value: unknownId(prefix, picks.below(2 ** 31) + 1), unknown: true };
  if (fresh !== undefined) return { value: FRESH, unknown: false };
  const ids = worldIds(world, prefix);
  if (ids.length === 0)
    return { value: unknownId(prefix, picks.below(2 ** 31) + 1), unknown: true };
  return { value: picks.from(ids), unknown: false };
}

/** Valid bodies of `route` (schema-valid, then made valid for the service by its body rule). */
export function validBody(
  route: RouteDefinition,
  registry: SchemaRegistry,
  world: World,
): fc.Arbitrary<Ruled> | undefined {
  const schema = route.schemas.body;
  if (schema === undefined) return undefined;
  if (route.operationId === 'createFhirPatient') {
    // Drawn as /v1 fields and written in FHIR form (fhir-values.ts says why).
    return arbitraryFor({ $ref: 'urn:openapi:schema:PatientCreateParams' }, registry)
      .map((fields): Ruled => {
        const body = fhirPatientOf(patientFields(fields as Record<string, unknown>));
        return { body, unknownReference: false };
      })
      .filter(({ body }) => registry.valid(schema, body));
  }
  const rule = BODY_RULES[route.operationId];
  return fc
    .tuple(arbitraryFor(schema, registry), DRAWS)
    .map(([body, draws]): Ruled => {
      if (rule === undefined) return { body, unknownReference: false };
      return rule(body as Record<string, unknown>, world, new Picks(draws));
    })
    .filter(({ body }) => registry.valid(schema, body));
}

function request(
  route: RouteDefinition,
  parts: Parts,
  body?: CaseBody,
  contentType?: string | null,
) {
  const headers = { ...parts.headers };
  if (contentType !== undefined && contentType !== null) headers['Content-Type'] = contentType;
  return {
    operationId: route.operationId,
    method: route.method,
    path: fill(route, parts.id?.value),
    query: parts.query,
    headers,
    key: keyFor(route),
    ...(body === undefined ? {} : { body }),
  };
}

/** The arbitrary of valid requests (body, query, id and headers all valid). */
function validCases(
  route: RouteDefinition,
  registry: SchemaRegistry,
  world: World,
): fc.Arbitrary<FuzzCase> {
  const body = validBody(route, registry, world) ?? fc.constant(undefined);
  return fc
    .tuple(
      validQuery(route, registry, world),
      validHeaders(route),
      body,
      DRAWS,
      fc.constantFrom('application/json', 'application/json; charset=utf-8'),
    )
    .map(([query, headers, ruled, draws, contentType]): FuzzCase => {
      const picks = new Picks(draws);
      const fresh = ruled?.fresh ?? FRESH_TARGET[route.operationId];
      const id = validId(route, registry, world, picks, fresh);
      const parts: Parts = { query, headers, ...(id ? { id } : {}) };
      const usesFresh = id?.value === FRESH || JSON.stringify(ruled?.body ?? null).includes(FRESH);
      return {
        ...request(
          route,
          parts,
          ruled ? { json: ruled.body } : undefined,
          ruled ? contentType : null,
        ),
        valid: true,
        why: 'valid',
        unknownReference: (id?.unknown ?? false) || (ruled?.unknownReference ?? false),
        ...(usesFresh && fresh !== undefined ? { fresh } : {}),
        bypassPrism: false,
      };
    });
}

/** The arbitrary of broken requests (exactly one part broken, the others valid). */
function brokenCases(
  route: RouteDefinition,
  registry: SchemaRegistry,
  world: World,
): fc.Arbitrary<FuzzCase> | undefined {
  const valid = validCases(route, registry, world);
  const variants: { arbitrary: fc.Arbitrary<FuzzCase>; weight: number }[] = [];
  const broken = (base: FuzzCase, change: Partial<FuzzCase>, why: string): FuzzCase => {
    const { fresh: _fresh, ...rest } = base;
    // A broken case never needs a fresh object: its id, if any, is a real or random one.
    const path = base.path.includes(encodeURIComponent(FRESH))
      ? fill(route, worldIds(world, idPrefixOf(route, registry))[0] ?? unknownId('x', 7))
      : base.path;
    return {
      ...rest,
      path,
      ...change,
      valid: false,
      why,
      bypassPrism: change.bypassPrism ?? false,
    };
  };
  const bodySchema = route.schemas.body;
  const bodies = validBody(route, registry, world);
  if (bodySchema !== undefined && bodies !== undefined) {
    const mutated = brokenArbitrary(
      bodySchema,
      bodies.map((r) => r.body),
      registry,
    );
    variants.push({
      weight: 6,
      arbitrary: fc.tuple(valid, mutated).map(([base, b]) => {
        // Bodies sent over a plain socket (`Expect: 100-continue`) go straight to the service:
        // Prism's proxy drops such connections without an answer.
        const huge = Buffer.byteLength(JSON.stringify(b.value ?? null)) > RAW_ABOVE;
        const body: CaseBody = b.value === undefined ? { raw: '' } : { json: b.value };
        return broken(base, { body, bypassPrism: huge }, `body: ${b.why}`);
      }),
    });
    const texts = bodies.map((r) => JSON.stringify(r.body).replaceAll(FRESH, 'tok_0'));
    // Odd texts judged like the service must judge them: parsed, then the oracle.
    variants.push({
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...HOSTILE_TEXT_KINDS))
        .filter(([base]) => base.body !== undefined && 'json' in base.body)
        .map(([base, kind]): FuzzCase => {
          const json = (base.body as { json: unknown }).json;
          const hostile = hostileText(JSON.stringify(json), kind);
          const ok = registry.valid(bodySchema, parseJsonText(hostile.text));
          return {
            ...base,
            body: { raw: hostile.text },
            valid: ok,
            why: ok ? 'valid' : hostile.why,
            // Prism reads bodies itself, and its reading of these is not under test.
            bypassPrism: true,
          };
        }),
    });
    variants.push({
      weight: 2,
      arbitrary: fc.tuple(valid, rawBodies(texts)).map(([base, raw]) => {
        const headers = { ...base.headers };
        delete headers['Content-Type'];
        if (raw.contentType !== null) headers['Content-Type'] = raw.contentType;
        return broken(base, { body: raw.body, headers, bypassPrism: raw.bypassPrism }, raw.why);
      }),
    });
  }
  const query = brokenQuery(route, registry, world);
  if (query !== undefined) {
    variants.push({
      weight: 4,
      arbitrary: fc.tuple(valid, query).map(([base, q]) =>
        // Straight to the service, for the reason given for charsets in `raw-bodies.ts`.
        broken(base, { query: q.query, bypassPrism: q.query.includes('%00') }, q.why),
      ),
    });
  }
  const ids = brokenPathIds(route, registry, world);
  if (ids !== undefined) {
    variants.push({
      weight: 2,
      arbitrary: fc.tuple(valid, ids).map(([base, id]) => {
        const c = broken(base, {}, id.why);
        return { ...c, path: fill(route, id.id) };
      }),
    });
  }
  const headers = brokenHeaders(route, registry);
  if (headers !== undefined) {
    variants.push({
      weight: 1,
      arbitrary: fc.tuple(valid, headers).map(([base, h]) => {
        const merged = { ...base.headers };
        for (const name of Object.keys(merged)) {
          if (name.toLowerCase() in h.headers) delete merged[name];
        }
        return broken(base, { headers: { ...merged, ...h.headers } }, h.why);
      }),
    });
  }
  // A route with no input to break (a public probe: no parameters, no body, no key) has none.
  return variants.length > 0 ? fc.oneof(...variants) : undefined;
}

/** Every case of `route`: valid and broken, about half each (valid only when nothing can break). */
export function operationCases(
  route: RouteDefinition,
  registry: SchemaRegistry,
  world: World,
): fc.Arbitrary<FuzzCase> {
  const valid = validCases(route, registry, world);
  const broken = brokenCases(route, registry, world);
  return broken === undefined ? valid : fc.oneof(valid, broken);
}
