/**
 * What the FHIR scope works out about a request before its handler runs, carried to the
 * handler on the query object (the one request part every handler receives) under a symbol,
 * so validation, logging and serialisation never see it: the absolute base the request's
 * links are built on, and the search parameters that were ignored (docs/design.md#fhir-r4).
 */

/** The FHIR scope's findings about one request. */
export interface FhirRequestInfo {
  /** The absolute FHIR base (`https://api.example.com/fhir/R4`), never from `Host`. */
  readonly base: string;
  /** Search parameters ignored under lenient handling, in the order received. */
  readonly ignored: readonly string[];
}

const INFO = Symbol('fhirRequestInfo');

/** Where a request's info is read when the FHIR scope did not attach any (unit tests). */
const FALLBACK: FhirRequestInfo = { base: 'http://127.0.0.1:4010/fhir/R4', ignored: [] };

/**
 * Attaches `info` to a request's query object. A symbol key is invisible to validation,
 * `Object.keys`, `for…in` and `JSON.stringify`; set by assignment, which costs a tenth of
 * `Object.defineProperty` (0.05 against 0.5 µs a search, `--cpu-prof` under bench:fhir).
 */
export function attachRequestInfo(query: object, info: FhirRequestInfo): void {
  (query as { [INFO]?: FhirRequestInfo })[INFO] = info;
}

/** The info the FHIR scope attached to `query`. */
export function requestInfo(query: unknown): FhirRequestInfo {
  const info =
    query !== null && typeof query === 'object'
      ? (query as { [INFO]?: FhirRequestInfo })[INFO]
      : undefined;
  return info ?? FALLBACK;
}
