/**
 * The same request must get the same answer from every database: same status, same body —
 * except what is different by nature between two runs. `comparable` rewrites an answer so
 * that only those parts differ no more:
 * - ids (`pat_01…`, `req_01…`, inside any string too) become `pat_#1`, `pat_#2`, … in order
 *   of first appearance, so "the same object twice" still shows, but not its random id; their
 *   FHIR form (`pat-01…`, docs/design.md#fhir-r4) gets the same stand-in written `pat-#1`;
 * - a FHIR resource's `meta.versionId` (a digest of the stored record, ids and times included)
 *   becomes `<version>`;
 * - times (properties whose schema is the spec's `Timestamp` or `DateTime`) become `<time>`;
 * - secrets the service makes at random (`whsec_…`, `ek_test_…`) become `<secret>`;
 * - an error's `doc_url` and the FHIR face's absolute URLs (`fullUrl`, `link.url`,
 *   `implementation.url`) keep only their path and after: they name the answering server's
 *   own address (server/errors.ts, server/fhir/base-url.ts), which differs between the two
 *   services.
 */

import { MAX_DATE_TIME_SECONDS } from '../../contract/date-time.js';
import type { Schema } from './schema-registry.js';

// Not after a lower-case letter rather than `\b`: in FHIR links the id follows `%2F`.
const ID = /(?<![a-z])([a-z]+)([_-])([0-9A-HJKMNP-TV-Z]{26})\b/g;
const SECRET =
  /\b(whsec|ek_test|ek_live|sk_test|sk_live|rk_test|rk_live|pk_test|pk_live)_[A-Za-z0-9]+/g;

const ORIGIN = /^https?:\/\/[^/]+/;
/** A FHIR link or `fullUrl`: absolute on the answering server's own address. */
const FHIR_URL = /^https?:\/\/[^/]+\/fhir\/R4(\/|\?|$)/;

// Times the spec writes as a plain nullable integer (unix seconds) rather than a `Timestamp`,
// and FHIR's instants (`meta.lastUpdated`), typed as FHIR does.
const UNTYPED_TIMES = ['next_attempt', 'cancelled_at', 'lastUpdated'];

/**
 * Names of the properties whose schema is the `Timestamp` component (unix seconds) or the
 * `DateTime` one (RFC 3339, from 2026-12-01), in any schema, and the untyped ones above.
 */
export function timestampProperties(components: readonly Schema[]): Set<string> {
  const names = new Set<string>(UNTYPED_TIMES);
  const stack: unknown[] = [...components];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    const properties = (node as Schema).properties as Record<string, unknown> | undefined;
    for (const [name, schema] of Object.entries(properties ?? {})) {
      const text = JSON.stringify(schema);
      // A time is a Timestamp or DateTime, or unix seconds bounded by the last RFC 3339
      // instant (2026-11-01's appointment times state that bound inline).
      if (
        text.includes('schema:Timestamp"') ||
        text.includes('schema:DateTime"') ||
        text.includes(`"maximum":${MAX_DATE_TIME_SECONDS}`)
      )
        names.add(name);
    }
    stack.push(...Object.values(node));
  }
  return names;
}

/** An answer with what differs by nature replaced (see the module comment). */
export function comparable(
  status: number,
  text: string,
  timestamps: ReadonlySet<string>,
): { status: number; body: unknown } {
  const ids = new Map<string, string>();
  const counts = new Map<string, number>();
  const rewrite = (s: string): string =>
    s.replace(SECRET, '<secret>').replace(ID, (_id, prefix: string, sep: string, ulid: string) => {
      const id = `${prefix}_${ulid}`;
      let stand = ids.get(id);
      if (stand === undefined) {
        const n = (counts.get(prefix) ?? 0) + 1;
        counts.set(prefix, n);
        stand = `${prefix}_#${n}`;
        ids.set(id, stand);
      }
      return sep === '_' ? stand : stand.replace('_', '-');
    });
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    return { status, body: rewrite(text) };
  }
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === 'string' && key === 'doc_url') return rewrite(value.replace(ORIGIN, ''));
    if (typeof value === 'string' && FHIR_URL.test(value))
      return rewrite(value.replace(ORIGIN, ''));
    if (typeof value === 'string' && key !== undefined && timestamps.has(key)) return '<time>';
    if (typeof value === 'string' && key === 'versionId') return '<version>';
    if (typeof value === 'string') return rewrite(value);
    if (typeof value === 'number')
      return key !== undefined && timestamps.has(key) ? '<time>' : value;
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [rewrite(k), walk(v, k)] as const),
      );
    }
    return value;
  };
  return { status, body: walk(body) };
}

/** Where two comparable answers first differ (a JSON path), or undefined when they agree. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    return `${path || '(root)'}: ${short(a)} vs ${short(b)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b))
    return `${path || '(root)'}: ${short(a)} vs ${short(b)}`;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const key of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
    const found = firstDifference(ao[key], bo[key], `${path}/${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
