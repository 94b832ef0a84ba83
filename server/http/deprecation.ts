/**
 * Retiring a version (docs/design.md#versioning): every answer served in a version whose module
 * is marked `deprecated` carries `Deprecation` (RFC 9745: a structured-field date, `@` and Unix
 * seconds), `Sunset` (RFC 8594: an HTTP-date) and a `Link` to the versioning guide with the
 * `deprecation` and `sunset` relations, so a pinned integrator's client and logs see it before
 * the version goes. The answer's `PatientCare-Version` says which version served it (header or
 * account pin alike), so the headers follow it and nothing else decides.
 */
import type { FastifyReply } from 'fastify';
import type { VersionRegistry } from '../versioning/registry.js';

/** The headers one deprecated version's answers carry. */
export type DeprecationHeaders = Readonly<Record<'Deprecation' | 'Sunset' | 'Link', string>>;

const DATED = /^\d{4}-\d{2}-\d{2}$/;
/** Where the reference explains versions and their retirement (the docs' Versioning guide). */
const GUIDE = '/docs#tag/Versioning';

function utcMidnight(date: string, what: string): number {
  const ms = DATED.test(date) ? Date.parse(`${date}T00:00:00Z`) : Number.NaN;
  // Date.parse rolls 2027-02-30 over into March: only a date that reads back the same is one.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date)
    throw new Error(`${what} ${date} is not a YYYY-MM-DD date`);
  return ms;
}

/**
 * The headers per deprecated version; empty when none is (the usual case, costing nothing per
 * request). Throws on a module that cannot be retired as written: the latest version (every
 * client would be told to move to nothing), a date that is not one, or a sunset before the
 * deprecation (RFC 9745 §2.1).
 */
export function deprecationHeaders(
  registry: Pick<VersionRegistry, 'latest' | 'changes'>,
): ReadonlyMap<string, DeprecationHeaders> {
  const headers = new Map<string, DeprecationHeaders>();
  for (const change of registry.changes) {
    const retiring = change.deprecated;
    if (retiring === undefined) continue;
    if (change.date === registry.latest)
      throw new Error(`version ${change.date} is the latest; it cannot be deprecated`);
    const since = utcMidnight(retiring.since, `${change.date} deprecated.since`);
    const sunset = utcMidnight(retiring.sunset, `${change.date} deprecated.sunset`);
    if (sunset < since)
      throw new Error(`${change.date}: sunset ${retiring.sunset} is before ${retiring.since}`);
    headers.set(change.date, {
      Deprecation: `@${since / 1000}`,
      Sunset: new Date(sunset).toUTCString(),
      Link: `<${GUIDE}>; rel="deprecation sunset"; type="text/html"`,
    });
  }
  return headers;
}

/** Adds the retirement headers when the answer's version is deprecated (an `onSend` step). */
export function addDeprecationHeaders(
  reply: FastifyReply,
  retiring: ReadonlyMap<string, DeprecationHeaders>,
): void {
  const version = reply.getHeader('patientcare-version');
  if (typeof version !== 'string') return;
  const headers = retiring.get(version);
  if (headers !== undefined) reply.headers(headers);
}

/** The sunset date (`YYYY-MM-DD`) of each deprecated version, for the docs picker and reports. */
export function sunsetDates(
  registry: Pick<VersionRegistry, 'changes'>,
): Readonly<Record<string, string>> {
  return Object.fromEntries(
    registry.changes.flatMap((c) => (c.deprecated ? [[c.date, c.deprecated.sunset]] : [])),
  );
}
