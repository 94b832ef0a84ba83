/**
 * Values for the string formats the spec uses (`date`, `date-time`, `email`, `uri`): valid
 * ones as fast-check arbitraries, and broken ones that look close to valid.
 */
import fc from 'fast-check';

const DAY_MS = 86_400_000;
// Dates well in the past, so a birth date is never "in the future" for the service's clock.
const FIRST_DAY = Date.UTC(1900, 0, 1);
const LAST_DAY = Date.UTC(2020, 11, 31);

const date = fc
  .integer({ min: FIRST_DAY / DAY_MS, max: LAST_DAY / DAY_MS })
  .map((day) => new Date(day * DAY_MS).toISOString().slice(0, 10));

const dateTime = fc
  .integer({ min: FIRST_DAY, max: LAST_DAY })
  .map((ms) => new Date(ms).toISOString());

// Built on first use, not at import: constructing fast-check's webUrl arbitrary took 2.2-7.8 s
// of wall time alone (fast-check 4.10, shared 2-core machine at load 5-9), and modules that
// only need this folder's request helpers (the spec gate's replay step) import this file:
// importing the replay step costs 0.7-1.2 s less CPU since (3 pairs against the eager file).
let uri: fc.Arbitrary<string> | undefined;
function uriArbitrary(): fc.Arbitrary<string> {
  uri ??= fc.oneof(
    fc.webUrl({ withQueryParameters: true }),
    fc.constantFrom('urn:oid:2.16.840.1.113883.4.1', 'https://clinic.example/mrn'),
  );
  return uri;
}

/** Valid values per format; `undefined` for a format the fuzzer does not know. */
export function formatArbitrary(format: string): fc.Arbitrary<string> | undefined {
  switch (format) {
    case 'date':
      return date;
    case 'date-time':
      return dateTime;
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return uriArbitrary();
    default:
      return undefined;
  }
}

/** Near misses per format: each is invalid for it (the Ajv oracle re-checks anyway). */
export const BAD_FORMATS: Readonly<Record<string, readonly string[]>> = {
  date: ['2021-02-30', '2021-13-01', '20210101', '2021-1-1', '01/02/2021', '2021-01-01T00:00:00Z'],
  'date-time': ['2021-01-01', '2021-01-01 25:00:00', 'yesterday', '2021-01-01T00:00:00'],
  email: ['plainaddress', '@no-local.example', 'a@', 'a b@c.example', 'é@ü.example'],
  uri: ['not a uri', '//no-scheme.example/x', 'http://', ':::', 'ht tp://x.example'],
};
