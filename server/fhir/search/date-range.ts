/**
 * FHIR date search parameters (`date=ge2026-11-01`, `created=lt2026-11-05T10:00:00Z`) as a
 * range of unix seconds, for a stored point in time (an appointment's start, a claim's
 * creation). A parameter's value is itself a range: a date is its whole UTC day, an instant
 * its second (or minute, when written without seconds). FHIR's prefixes compare the stored
 * point with that range: `eq` inside it, `ge` from its start, `gt`/`sa` after its end, `lt`/`eb`
 * before its start, `le` before its end. Repeated parameters all apply (a range:
 * `date=ge2026-11-01&date=lt2026-12-01`).
 */
import type { CreatedRange } from '../../sql/criteria.js';
import { FhirError } from '../errors.js';

const SHAPE =
  /^(eq|gt|ge|lt|le|sa|eb)?(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** The half-open range `[from, to)` of seconds one value stands for, and its prefix. */
function valueRange(text: string, name: string): { prefix: string; from: number; to: number } {
  const match = SHAPE.exec(text);
  const invalid = () =>
    new FhirError(400, 'value', `${name} must be a date or an instant after an optional prefix.`, {
      expression: name,
    });
  if (match === null) throw invalid();
  const [, prefix = 'eq', date, time, seconds, zone] = match;
  const iso =
    time === undefined ? `${date}T00:00:00Z` : `${date}T${time}:${seconds ?? '00'}${zone}`;
  const ms = Date.parse(iso);
  // Date.parse rolls 2026-02-30 over to March; a date must name a day that exists.
  const day = Date.parse(`${date}T00:00:00Z`);
  if (!Number.isFinite(ms) || !Number.isFinite(day)) throw invalid();
  if (new Date(day).toISOString().slice(0, 10) !== date) throw invalid();
  const from = Math.floor(ms / 1000);
  const width = time === undefined ? 86_400 : seconds === undefined ? 60 : 1;
  return { prefix, from, to: from + width };
}

/** Narrows `range` so `lower` (inclusive) is at least `value`. */
function atLeast(range: CreatedRange, value: number): void {
  range.gte = range.gte === undefined ? value : Math.max(range.gte, value);
}

/** Narrows `range` so the upper bound (exclusive) is at most `value`. */
function below(range: CreatedRange, value: number): void {
  range.lt = range.lt === undefined ? value : Math.min(range.lt, value);
}

/**
 * The range of stored seconds matching every value of a date parameter.
 *
 * @example dateRange(['ge2026-11-01', 'lt2026-12-01'], 'date') // { gte: 1793491200, lt: 1796083200 }
 */
export function dateRange(values: readonly string[], name: string): CreatedRange {
  const range: CreatedRange = {};
  for (const text of values) {
    const { prefix, from, to } = valueRange(text, name);
    if (prefix === 'eq') {
      atLeast(range, from);
      below(range, to);
    } else if (prefix === 'ge') atLeast(range, from);
    else if (prefix === 'gt' || prefix === 'sa') atLeast(range, to);
    else if (prefix === 'lt' || prefix === 'eb') below(range, from);
    else below(range, to); // le
  }
  return range;
}
