/**
 * Lenient search handling (FHIR R4 http.html "handling" and search.html): a search parameter
 * the operation does not define, or a `_summary` other than `count`, is ignored, and the
 * searchset says so in an OperationOutcome entry (`search.mode = outcome`); the `self` link
 * leaves it out, as it shows the search that was run. `Prefer: handling=strict` keeps every
 * parameter, so validation refuses the unknown ones with `400` as before.
 */
import { preferenceValue } from '../http/prefer.js';

/** Whether an operation is a type search (`GET [type]`, `POST [type]/_search`): the ones
 * lenient handling applies to; reads, create and metadata keep refusing unknown parameters.
 */
export function isTypeSearch(method: string, url: string): boolean {
  return (
    (method === 'GET' && /^\/fhir\/R4\/[A-Z][A-Za-z]+$/.test(url)) ||
    (method === 'POST' && /^\/fhir\/R4\/[A-Z][A-Za-z]+\/_search$/.test(url))
  );
}

/**
 * Whether `Prefer` asks for strict handling: the `handling` preference (RFC 7240, read by
 * `server/http/prefer.ts`: `handling=strict`, `Handling = "strict"`, `return=minimal,
 * handling=strict`) with the value `strict`. A `handling` parameter of another preference
 * (`return=minimal; handling=strict`) is that preference's, so lenient.
 */
export function prefersStrict(prefer: string | string[] | undefined): boolean {
  return preferenceValue(prefer, 'handling') === 'strict';
}

/** Whether a `_summary` value (or values) asks for the count only, the one we serve. */
function summaryServed(value: unknown): boolean {
  const values = Array.isArray(value) ? value : [value];
  return values.length > 0 && values.every((v) => v === 'count');
}

/**
 * The query with the parameters lenient handling ignores taken out, and their names.
 * `known`: the query parameters the operation defines.
 */
export function lenientQuery(
  query: Readonly<Record<string, unknown>>,
  known: ReadonlySet<string>,
): { query: Record<string, unknown>; ignored: string[] } {
  const dropped = (name: string): boolean =>
    !known.has(name) || (name === '_summary' && !summaryServed(query[name]));
  // The common case drops nothing: the query object itself is kept, no copy is made.
  let drops = false;
  for (const name in query) {
    if (dropped(name)) {
      drops = true;
      break;
    }
  }
  if (!drops) return { query: query as Record<string, unknown>, ignored: [] };
  const kept: Record<string, unknown> = Object.create(null);
  const ignored: string[] = [];
  for (const name of Object.keys(query)) {
    const value = query[name];
    if (dropped(name)) ignored.push(name);
    else kept[name] = value;
  }
  return { query: kept, ignored };
}

/** Whether a query asks for the count only (`_summary=count`). */
export function countOnly(query: Readonly<Record<string, unknown>>): boolean {
  return query._summary !== undefined && summaryServed(query._summary);
}
