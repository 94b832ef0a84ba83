/**
 * Content negotiation on the FHIR face (FHIR R4 http.html "Content Types and encodings"): JSON
 * is the only format served. `application/fhir+json`, `application/json` and `_format=json`
 * (or either media type) answer JSON; a client that asks for XML (or Turtle, or HTML), by
 * `_format` or by an `Accept` that admits no JSON, gets `406` with an OperationOutcome (in JSON, the one format
 * we write), instead of JSON it did not ask for.
 */
import { FhirError } from './errors.js';

/**
 * `_format` values naming a format FHIR defines other than JSON, all `406` here (R4
 * resource-formats.html: a format the server does not support is `406`). XML: `xml`,
 * `text/xml`, `application/xml`, `application/fhir+xml` (http.html), and DSTU2's
 * `application/xml+fhir`, which clients still send; RDF Turtle: `ttl`, `text/turtle`,
 * `application/fhir+turtle`, `application/x-turtle`; HTML for browsers: `html`, `text/html`.
 * Any other value is not a format at all, and the parameter's enum refuses it with `400`.
 */
const REFUSED_FORMATS = new Set([
  'xml',
  'text/xml',
  'application/xml',
  'application/fhir+xml',
  'application/xml+fhir',
  'ttl',
  'text/turtle',
  'application/fhir+turtle',
  'application/x-turtle',
  'html',
  'text/html',
]);

/** Whether one `Accept` media range admits JSON. */
function admitsJson(range: string): boolean {
  const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
  if (params.some((param) => /^q=0(\.0*)?$/.test(param.replace(/\s+/g, '')))) return false;
  return (
    type === '*/*' ||
    type === 'application/*' ||
    type === 'application/json' ||
    type === 'application/fhir+json' ||
    type === 'json'
  );
}

/** Whether an `Accept` header leaves JSON out (no header, or an empty one, admits anything). */
function acceptRefusesJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return false;
  return !accept.split(',').some(admitsJson);
}

/**
 * The media type a `_format` value names, as compared: parameters (`;charset=utf-8`) and
 * case dropped, and a space read as `+`. A `+` left unescaped in a query or a form body
 * decodes to a space (`_format=application/fhir+xml` arrives as `application/fhir xml`), and
 * no media type holds a space, so that is what the client wrote.
 */
function formatType(value: string): string {
  return (value.split(';')[0] ?? '')
    .trim()
    .toLowerCase()
    .replace(/[ \t]+/g, '+');
}

/** Whether a `_format` value (or values) names a format we do not serve. */
function formatRefused(format: unknown): boolean {
  const values = Array.isArray(format) ? format : [format];
  return values.some((v) => typeof v === 'string' && REFUSED_FORMATS.has(formatType(v)));
}

/**
 * Throws `406` when the request asks for a format other than JSON: by `_format` in `query`
 * (the URL's, or a form search's fields merged in), or by `accept`.
 */
export function checkAcceptable(query: unknown, accept: string | undefined): void {
  const format =
    query !== null && typeof query === 'object'
      ? (query as Record<string, unknown>)._format
      : undefined;
  if (formatRefused(format) || acceptRefusesJson(accept)) {
    throw new FhirError(
      406,
      'not-supported',
      'This server answers in JSON only (application/fhir+json); XML, Turtle and HTML are not supported.',
      { expression: format === undefined ? 'Accept' : '_format' },
    );
  }
}
