/**
 * What a resource is, as data (docs/design.md#resources): its table and id prefix, the columns
 * kept beside its JSON document, the criteria its lists and searches filter on, the ids its
 * reads put in the audit trail, its events, and its FHIR face. One module per resource
 * (patient.ts, appointment.ts, claim.ts, webhook.ts) fills this in; the repositories
 * (server/repos/records.ts), the FHIR handlers (server/handlers/fhir-resources.ts) and the
 * audit read it, so a resource's facts live in exactly one place.
 */
import type { Db, SqlValue } from '../db/types.js';
import type { NewObjectInfo } from '../domain/appointment-build.js';
import type { EventType } from '../domain/events.js';
import { resourceMissing } from '../domain/serialize.js';
import type { FhirResourceType } from '../fhir/ids.js';
import { type IdPrefix, newId } from '../ids.js';
import type { Operator } from '../repos/criteria.js';
import { getRecord } from '../repos/records.js';
import type { DocTable, StoredJson } from '../repos/rows.js';

/** What every stored document has; `T` is the resource's stored type (from generated/). */
export interface StoredDoc {
  id: string;
  livemode: boolean;
  created: number;
  updated: number;
}

/** A column kept beside the JSON document, read from the document on every write. */
export interface Column<T> {
  readonly name: string;
  readonly value: (doc: T) => SqlValue;
  /** Set on insert only: the field never changes afterwards (an appointment's patient). */
  readonly fixed?: boolean;
}

/** One criterion: the column (or expression) and how a given value compares with it. */
export interface Criterion {
  readonly column: string;
  // biome-ignore lint/suspicious/noExplicitAny: each criterion takes its own value type
  readonly op: Operator<any>;
}

/**
 * How a FHIR search parameter becomes a criterion: `parse` turns the query value into the
 * criterion's value, or `null` when it names nothing we could have (the search then matches
 * nothing, as a reference to a missing resource does).
 */
export interface SearchParameter<F extends string> {
  /** The criterion it sets, or `created`: the range every list has (docs/design.md#lists). */
  readonly criterion: F | 'created';
  // biome-ignore lint/suspicious/noExplicitAny: the query value is typed by the route
  readonly parse: (value: any) => unknown;
}

/** A resource's FHIR face: its type, the search parameters it serves and the filters it always has. */
export interface FhirFace<T, F extends string> {
  readonly type: FhirResourceType;
  /** FHIR search parameter name → the criterion it sets. */
  readonly search: Readonly<Record<string, SearchParameter<F>>>;
  /** Criteria every search of this face carries (a ClaimResponse exists once answered). */
  readonly always?: Readonly<Partial<Record<F, unknown>>>;
  /** Whether a stored document has this face (a claim still `submitted` has no response). */
  readonly exists?: (doc: T) => boolean;
}

/** A resource: `T` its stored type, `F` the names of its criteria. */
export interface Resource<T extends StoredDoc, F extends string = string> {
  readonly name: string;
  readonly table: DocTable;
  readonly prefix: IdPrefix;
  /** Columns beside `id, livemode, created, updated, data`, in the order they are written. */
  readonly columns: readonly Column<T>[];
  /** List and search criteria by name; a query names the ones it sets. */
  readonly criteria: Readonly<Record<F, Criterion>>;
  /** The criteria `/v1`'s list of this resource accepts. */
  readonly listCriteria: readonly F[];
  /**
   * The fields whose values a read of a document records in the audit trail
   * (docs/design.md#phi): its id, and its patient's when it has one.
   */
  readonly audited: readonly (keyof T & string)[];
  /** The event types a change of this resource emits. */
  readonly events: readonly EventType[];
  /** The JSON stored as `data` (default: the document itself). */
  readonly document?: (doc: T) => object;
  /** Inserts run deferred (PostgreSQL: sent with the write's next statement). */
  readonly deferInsert?: boolean;
  /** Checks before a write (inside its transaction), e.g. a uniqueness rule. */
  readonly beforeWrite?: (tx: Db, doc: T) => Promise<void>;
  /** Rows of child tables, written after the document (and replaced on update). */
  readonly children?: {
    readonly write: (tx: Db, doc: T) => Promise<void>;
    readonly clear: (tx: Db, doc: T) => Promise<void>;
  };
}

/** The id (with the resource's prefix), mode and creation time of a new document. */
export function newDocInfo(
  resource: Resource<never, string>,
  source: { readonly livemode: boolean; now(): number },
): NewObjectInfo {
  return {
    id: newId(resource.prefix, source.now()),
    livemode: source.livemode,
    nowSeconds: Math.floor(source.now() / 1000),
  };
}

/** The audit ids of some documents of `resource`, each once, in order. */
export function auditIdsOf<T extends StoredDoc>(
  resource: Resource<T, string>,
  docs: readonly T[],
): string[] {
  return [...new Set(docs.flatMap((doc) => resource.audited.map((field) => String(doc[field]))))];
}

/** As `auditIdsOf`, for documents read as JSON text: parsed only when more than the id is audited. */
export function auditIdsOfText<T extends StoredDoc>(
  resource: Resource<T, string>,
  rows: readonly StoredJson[],
): string[] {
  if (resource.audited.length === 1 && resource.audited[0] === 'id') return rows.map((r) => r.id);
  return auditIdsOf(
    resource,
    rows.map((row) => JSON.parse(row.json) as T),
  );
}

/** What a read needs of the request: its database, mode and audit trail. */
interface ReadContext {
  readonly db: Db;
  readonly livemode: boolean;
  audit(objectIds: readonly string[], outcome?: 'not_found'): void;
}

/**
 * The document `id` of `resource` in the key's mode for a `/v1` retrieve, or `404
 * resource_missing` after a `not_found` audit row (another mode's document is as missing).
 */
export async function retrieveRecord<T extends StoredDoc>(
  resource: Resource<T, string>,
  ctx: ReadContext,
  id: string,
): Promise<T> {
  const doc = await getRecord(resource, ctx.db, id, ctx.livemode);
  if (doc === undefined) {
    ctx.audit([id], 'not_found');
    throw resourceMissing(resource.name);
  }
  return doc;
}
