/**
 * Query strings, path parameters and headers of fuzz cases: valid ones generated from the
 * route's schemas, and broken ones (one parameter at a time) judged by the Ajv oracle on their
 * text form, since these parts travel as text.
 */

import fc from 'fast-check';
import { ACTOR_HEADER, ACTOR_PATTERN } from '../../contract/actor.js';
import type { RouteDefinition } from '../../contract/route-types.js';
import { isTypeSearch, lenientQuery } from '../../server/fhir/lenient-search.js';
import { fhirQuery, fhirType } from './fhir-values.js';
import { malformedIds } from './ids.js';
import { arbitraryFor } from './schema-arbitrary.js';
import type { Schema, SchemaRegistry } from './schema-registry.js';
import { Picks, reference } from './valid-rules.js';
import type { World } from './world.js';

/** A query as text: `name=value`, repeated names as arrays, `deepObject` as one nested level. */
export type QueryText = Record<string, string | string[] | Record<string, string>>;

/** `limit=5&created[gt]=1` (brackets left readable, values percent-encoded). */
export function serializeQuery(query: QueryText): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) {
      for (const v of value) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(v)}`);
    } else if (typeof value === 'object') {
      for (const [sub, v] of Object.entries(value)) {
        parts.push(
          `${encodeURIComponent(name)}[${encodeURIComponent(sub)}]=${encodeURIComponent(v)}`,
        );
      }
    } else parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  }
  return parts.join('&');
}

function asText(value: unknown): QueryText {
  const out: QueryText = {};
  for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
    if (Array.isArray(v)) out[name] = v.map(String);
    else if (v !== null && typeof v === 'object') {
      out[name] = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
    } else out[name] = String(v);
  }
  return out;
}

/** Which prefix a list's ids (cursors) carry, from the cursor parameter's schema pattern. */
function idPrefix(schema: Schema | undefined, registry: SchemaRegistry): string | undefined {
  if (schema === undefined) return undefined;
  const pattern = registry.resolve(schema).pattern;
  return typeof pattern === 'string' ? /^\^([a-z]+)_/.exec(pattern)?.[1] : undefined;
}

const IDS_BY_PREFIX: Readonly<Record<string, keyof World>> = {
  pat: 'patients',
  prac: 'practitioners',
  appt: 'appointments',
  clm: 'claims',
  wh: 'webhooks',
  evt: 'events',
};

/** Real ids of the set-up phase for an id prefix. */
export function worldIds(world: World, prefix: string | undefined): readonly string[] {
  const key = prefix === undefined ? undefined : IDS_BY_PREFIX[prefix];
  return key === undefined ? [] : world[key];
}

/** Valid query strings for `route` (empty string when it has none). */
export function validQuery(
  route: RouteDefinition,
  registry: SchemaRegistry,
  world: World,
): fc.Arbitrary<string> {
  const schema = route.schemas.querystring;
  if (schema === undefined) return fc.constant('');
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const cursorPrefix = idPrefix(properties.starting_after, registry);
  const fhir = fhirType(route);
  return fc
    .tuple(arbitraryFor(schema, registry), fc.array(fc.nat(), { minLength: 8, maxLength: 8 }))
    .map(([value, draws]) => {
      const query = { ...(value as Record<string, unknown>) };
      if (fhir !== undefined) {
        fhirQuery(fhir, query, world, draws);
        return serializeQuery(asText(query));
      }
      const picks = new Picks(draws);
      // docs/design.md#lists: the two cursors are exclusive; a random well-formed cursor is still a
      // position.
      if (query.starting_after !== undefined && query.ending_before !== undefined) {
        delete query[picks.oneIn(2) ? 'starting_after' : 'ending_before'];
      }
      for (const cursor of ['starting_after', 'ending_before'] as const) {
        if (query[cursor] !== undefined) {
          query[cursor] = reference(worldIds(world, cursorPrefix), cursorPrefix ?? 'x', picks).id;
        }
      }
      if (query.patient !== undefined) query.patient = reference(world.patients, 'pat', picks).id;
      if (query.practitioner_id !== undefined) {
        query.practitioner_id = reference(world.practitioners, 'prac', picks).id;
      }
      return serializeQuery(asText(query));
    });
}

const BAD_VALUES = [
  '',
  'abc',
  '-1',
  '0',
  '101',
  '1.5',
  '1e3',
  'true',
  'null',
  '%',
  'é',
  '😀',
  // Integers only in JavaScript's reading (`Number()`), not in the spec's.
  '0x10',
  '1e1',
  ' 1',
  '1 ',
  '+1',
  '01',
  '1.0',
  // Integers no database stores as sent.
  '10000000000000000000',
  '9007199254740993',
  '-9223372036854775809',
  '1e308',
  // Text the spec refuses.
  '\u0000',
  'a\u0000b',
  'TRUE',
];

/** Query strings broken in one parameter, with the fault named. */
export function brokenQuery(
  route: RouteDefinition,
  registry: SchemaRegistry,
  world: World,
): fc.Arbitrary<{ query: string; why: string }> | undefined {
  const schema = route.schemas.querystring;
  if (schema === undefined) return undefined;
  const names = Object.keys((schema.properties ?? {}) as object);
  const cursorPrefix = idPrefix(
    (schema.properties as Record<string, Schema>).starting_after,
    registry,
  );
  const someId = worldIds(world, cursorPrefix)[0] ?? `${cursorPrefix}_00000000000000000000000000`;
  const badIds = malformedIds(someId, cursorPrefix ?? 'x');
  const bad = fc.oneof(
    fc.constantFrom(...BAD_VALUES, ...badIds, 'x'.repeat(4000)),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
  );
  const single = fc.tuple(fc.constantFrom(...names), bad).map(([name, value]) => {
    const query: QueryText =
      name === 'created'
        ? { created: { [value === '' ? 'gt' : 'lte']: value } }
        : { [name]: value };
    return { query, why: `query ${name}=${JSON.stringify(value.slice(0, 40))}` };
  });
  const shaped = fc.constantFrom<{ query: QueryText; why: string }>(
    { query: { zzz_unknown: '1' }, why: 'unknown query parameter' },
    { query: { limit: ['1', '2'] }, why: 'limit given twice' },
    { query: { created: { between: '1' } }, why: 'unknown created[between]' },
    { query: { created: '5' }, why: 'created as a scalar, not deepObject' },
    { query: { created: { gt: '-1' } }, why: 'created[gt] below 0' },
    { query: { 'limit[x]': '1' }, why: 'limit as an object' },
    { query: { 'limit[]': ['1'] }, why: 'limit as an explicit list' },
  );
  // A FHIR type search ignores what it does not define (server/fhir/lenient-search.ts).
  const lenient = isTypeSearch(route.method, route.url);
  const known = new Set(names);
  const judged = fc
    .oneof(single, shaped)
    .filter(
      ({ query }) =>
        !registry.validText(
          schema,
          lenient ? lenientQuery(query as Record<string, unknown>, known).query : query,
        ),
    )
    .map(({ query, why }) => ({ query: serializeQuery(query), why }));
  if (!names.includes('ending_before')) return judged;
  // Valid for the schema, refused by the design (docs/design.md#lists: the cursors are exclusive).
  const exclusive = fc.constant({
    query: serializeQuery({ starting_after: someId, ending_before: someId }),
    why: 'starting_after and ending_before together',
  });
  return fc.oneof({ arbitrary: judged, weight: 5 }, { arbitrary: exclusive, weight: 1 });
}

/** Malformed path ids for a route with `{id}`, judged by the params schema. */
export function brokenPathIds(
  route: RouteDefinition,
  registry: SchemaRegistry,
  world: World,
): fc.Arbitrary<{ id: string; why: string }> | undefined {
  const schema = route.schemas.params;
  if (schema === undefined) return undefined;
  const idSchema = ((schema.properties ?? {}) as Record<string, Schema>).id;
  const prefix = idPrefix(idSchema, registry) ?? 'x';
  const someId = worldIds(world, prefix)[0] ?? `${prefix}_00000000000000000000000000`;
  return fc
    .oneof(
      fc.constantFrom(...malformedIds(someId, prefix)),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
    )
    .filter((id) => !registry.validText(schema, { id }))
    .map((id) => ({ id, why: `malformed path id ${JSON.stringify(id.slice(0, 40))}` }));
}

/**
 * Valid optional headers: the current version, an acting person (`PatientCare-Actor`, every
 * keyed operation takes one), and on POSTs a unique Idempotency-Key.
 */
export function validHeaders(route: RouteDefinition): fc.Arbitrary<Record<string, string>> {
  const post = route.method === 'POST';
  return fc
    .record(
      {
        version: fc.constant('2026-11-01'),
        key: fc.stringMatching(/^[\x21-\x7E]{1,40}$/),
        actor: fc.stringMatching(new RegExp(ACTOR_PATTERN)),
      },
      { requiredKeys: [] },
    )
    .map(({ version, key, actor }) => {
      const headers: Record<string, string> = {};
      if (version !== undefined) headers['PatientCare-Version'] = version;
      if (actor !== undefined && route.public !== true) headers[ACTOR_HEADER] = actor;
      if (post && key !== undefined) headers['Idempotency-Key'] = `${key}-${nextKey()}`;
      return headers;
    });
}

let keys = 0;
function nextKey(): string {
  return `fz${(++keys).toString(36)}`;
}

/** Headers broken one way, judged by the route's header schema. */
export function brokenHeaders(
  route: RouteDefinition,
  registry: SchemaRegistry,
): fc.Arbitrary<{ headers: Record<string, string>; why: string }> | undefined {
  const schema = route.schemas.headers;
  if (schema === undefined) return undefined;
  const options: { name: string; value: string }[] = [
    ...['2026-11-02', 'latest', '2020-01-01', '1', ''].map((value) => ({
      name: 'patientcare-version',
      value,
    })),
  ];
  if (route.method === 'POST') {
    for (const value of ['k'.repeat(256), 'has space', 'caf\u00e9', '']) {
      options.push({ name: 'idempotency-key', value });
    }
  }
  for (const value of ['has space', 'a'.repeat(65), 'ward/3', '']) {
    options.push({ name: 'patientcare-actor', value });
  }
  // FHIR reads take `If-None-Match` (an ETag, at most 100 characters) and no version header.
  options.push({ name: 'if-none-match', value: `W/"${'9'.repeat(120)}"` });
  // Filtered here, not with `fc.filter`: a filter no option passes never returns (a FHIR
  // read's header schema accepts every version value, which stalled the first FHIR run).
  const broken = options.filter(
    ({ name, value }) => !registry.validText(schema, { [name]: value }),
  );
  if (broken.length === 0) return undefined;
  return fc.constantFrom(...broken).map(({ name, value }) => ({
    headers: { [name]: value },
    why: `header ${name}: ${JSON.stringify(value.slice(0, 20))}${value.length > 20 ? '…' : ''}`,
  }));
}
