/**
 * `npm run doctor`: checks of stored data against what today's release considers valid, for
 * the rows an earlier release accepted under wider rules (docs/design.md, "Upgrades"). A check
 * reports counts and object ids only — never values, which may be PHI — and what repairs the
 * rows. Nothing here writes: the API reads such rows (see `storedSecondsOut`) and an update
 * through it corrects them.
 */
import type { Db } from '../db/types.js';
import { type AppointmentStatus, isTerminal } from '../domain/appointment-status.js';
import { appointmentOut } from '../domain/appointment-times.js';
import { isWritableSeconds } from '../domain/date-time.js';
import type { ComponentSchemas } from '../http/validation.js';
import { createValidators } from '../http/validation.js';
import { fillRulesOf, meetSchema, useFillRules } from '../repos/stored-shape.js';
import { APPOINTMENT } from '../resources/appointment.js';
import { type DocTable, RESOURCES } from '../resources/index.js';

/** What one check found. */
export interface DoctorFinding {
  /** Stable name of the check (`appointment-times`). */
  readonly check: string;
  /** `repair`: rows to correct; `info`: rows that read fine and need nothing, said for the record. */
  readonly kind: 'repair' | 'info';
  /** What the rows have in common and how they read meanwhile. */
  readonly summary: string;
  /** How to correct them (empty for `info`). */
  readonly repair: string;
  readonly count: number;
  /** The first `limit` ids, in id order. */
  readonly ids: readonly string[];
}

/** Rows read per query: a scan of millions of rows never holds more than this in memory. */
const BATCH = 1000;

/** Every row of a `data`-JSON table, in id order, `BATCH` at a time. */
async function* scan(
  db: Db,
  table: DocTable | 'events',
): AsyncGenerator<{ id: string; data: string }> {
  let after = '';
  for (;;) {
    const rows = await db.all<{ id: string; data: string }>(
      `SELECT id, data FROM ${table} WHERE id > $1 ORDER BY id LIMIT ${BATCH}`,
      [after],
    );
    for (const row of rows) yield row;
    const last = rows.at(-1);
    if (last === undefined || rows.length < BATCH) return;
    after = last.id;
  }
}

/** Whether a stored object's `start`/`end` hold a time no version can write. */
function timesOutOfRange(object: unknown): boolean {
  if (typeof object !== 'object' || object === null) return false;
  const { start, end } = object as { start?: unknown; end?: unknown };
  return [start, end].some((t) => t !== null && t !== undefined && !isWritableSeconds(t));
}

type Found = { count: number; ids: string[] };

/** One pass over `rows`: each row goes to the bucket `bucketOf` names (or none). */
async function collect(
  rows: AsyncGenerator<{ id: string; data: string }>,
  bucketOf: (data: unknown) => number | undefined,
  buckets: number,
  limit: number,
): Promise<Found[]> {
  const found: Found[] = Array.from({ length: buckets }, () => ({ count: 0, ids: [] }));
  for await (const row of rows) {
    const bucket = found[bucketOf(JSON.parse(String(row.data))) ?? -1];
    if (bucket === undefined) continue;
    bucket.count++;
    if (bucket.ids.length < limit) bucket.ids.push(row.id);
  }
  return found;
}

/**
 * How a stored document of a resource reads as its API object, where the two differ: an
 * appointment keeps unix seconds, which its read path turns into date-times (the handlers'
 * own conversion). Every other resource is stored in its response shape.
 */
const READ_AS: { readonly [name: string]: (stored: never) => unknown } = {
  [APPOINTMENT.name]: appointmentOut,
};

/**
 * Stored objects today's response schema rejects, as the API would read them (absent fields
 * filled as `stored-shape.ts` fills them): a field the spec made required without a default or
 * `nullable`, a narrowed enum or bound. Lists ids and the failing field paths, never values.
 */
async function storedSchemaCheck(
  db: Db,
  componentSchemas: ComponentSchemas,
  limit: number,
): Promise<DoctorFinding> {
  useFillRules(fillRulesOf(componentSchemas));
  const ajv = createValidators(componentSchemas).strict;
  const found: Found = { count: 0, ids: [] };
  const fields = new Set<string>();
  // Every resource of the registry, each by its own response schema and read path.
  for (const resource of RESOURCES) {
    const check = ajv.getSchema(`urn:openapi:response:${responseName(resource.name)}`);
    if (check === undefined) throw new Error(`no response schema for ${resource.name}`);
    const readAs = READ_AS[resource.name] ?? ((stored: unknown) => stored);
    for await (const row of scan(db, resource.table)) {
      const stored = meetSchema(JSON.parse(String(row.data)) as { object?: unknown });
      const object = readAs(stored as never);
      if (check(object)) continue;
      found.count++;
      if (found.ids.length < limit) found.ids.push(row.id);
      for (const error of check.errors ?? []) {
        if (fields.size < 5)
          fields.add(`${resource.name}${error.instancePath || '/'} ${error.keyword}`);
      }
    }
  }
  return {
    check: 'stored-schema',
    kind: 'repair',
    summary: `stored objects today's response schemas reject${fields.size === 0 ? '' : ` (${[...fields].join('; ')})`}; they are answered as stored`,
    repair:
      'give the new field a default or make it nullable in the spec (house rule: every field present, unset ones null), or update each object through the API',
    ...found,
  };
}

/** `patient` → `Patient`, `webhook_delivery` → `WebhookDelivery`: the response schema's name. */
function responseName(type: string): string {
  return type.replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase());
}

/**
 * Runs every check; `limit` bounds the ids listed per check (the counts are always whole).
 * `componentSchemas`: today's (default the generated route table's).
 */
export async function runDoctor(
  db: Db,
  { limit, componentSchemas }: { limit: number; componentSchemas?: ComponentSchemas },
): Promise<DoctorFinding[]> {
  const schemas = componentSchemas ?? (await import('../../generated/routes.js')).componentSchemas;
  const stored = await storedSchemaCheck(db, schemas, limit);
  // Bucket 0: can still be rescheduled; 1: ended, its times can no longer change.
  const [open, closed] = (await collect(
    scan(db, 'appointments'),
    (doc) => {
      if (!timesOutOfRange(doc)) return undefined;
      return isTerminal((doc as { status: AppointmentStatus }).status) ? 1 : 0;
    },
    2,
    limit,
  )) as [Found, Found];
  const [events] = (await collect(
    scan(db, 'events'),
    (event) => {
      const data = (event as { data?: { object?: unknown; previous_attributes?: unknown } }).data;
      return timesOutOfRange(data?.object) || timesOutOfRange(data?.previous_attributes)
        ? 0
        : undefined;
    },
    1,
    limit,
  )) as [Found];
  const reads = 'they read as 9999-12-31T23:59:59Z (2026-11-01: 253402300799)';
  return [
    {
      check: 'appointment-times',
      kind: 'repair',
      summary: `appointments not yet ended with a start or end outside 1970..9999 (stored by a release before 2026-11-01, e.g. milliseconds); ${reads}`,
      repair:
        'update start and end of each through the API (POST /v1/appointments/{id}, any version)',
      ...open,
    },
    {
      check: 'appointment-times-ended',
      kind: 'info',
      summary: `cancelled, fulfilled or otherwise ended appointments with such a time: their times can no longer change; ${reads}`,
      repair: '',
      ...closed,
    },
    {
      check: 'event-times',
      kind: 'info',
      summary:
        'stored events holding such a time; they read with it clamped the same way and expire with the event retention',
      repair: '',
      ...events,
    },
    stored,
  ];
}
