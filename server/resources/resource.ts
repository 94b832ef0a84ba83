/**
 * What a resource is, as data (docs/design.md#resources): its table and id prefix, the columns
 * and child tables kept beside its JSON document, the criteria its lists and searches filter
 * on (each with the type of its value), the `/v1` query fields that set them, the ids its
 * reads put in the audit trail, its events and read scope, and its FHIR face. One module per
 * resource fills this in; `index.ts` lists them, and everything else (id prefixes, table
 * names, FHIR types, the CapabilityStatement's search types, event scopes) is derived from
 * that list. A resource module is a leaf: it imports only the layers below it (db, sql,
 * FHIR value parsers, generated types), never the repositories, rules or handlers that read it.
 */
import type { Scope } from '../../contract/scopes.js';
import type { components } from '../../generated/types.js';
import type { Db, SqlValue } from '../db/types.js';
import { ourIdOf, ourIdOfReference } from '../fhir/id-text.js';
import type { CreatedRange, Operator } from '../sql/criteria.js';

/** The event types of the spec. */
export type EventType = components['schemas']['EventType'];

/** What every stored document has; `T` is the resource's stored type (from generated/). */
export interface StoredDoc {
  id: string;
  livemode: boolean;
  created: number;
  updated: number;
}

/** The identity, mode and clock of a new document (made by server/repos/records.ts). */
export interface NewObjectInfo {
  id: string;
  livemode: boolean;
  nowSeconds: number;
}

/** A column kept beside the JSON document, read from the document on every write. */
export interface Column<T> {
  readonly name: string;
  readonly value: (doc: T) => SqlValue;
  /** Set on insert only: the field never changes afterwards (an appointment's patient). */
  readonly fixed?: boolean;
}

/**
 * Rows of a child table, one per entry of the document (a patient's given names): keyed by
 * the parent's id and mode, deleted and written again whenever the document is.
 */
export interface ChildTable<T> {
  readonly table: string;
  /** The column holding the parent's id (`patient_id`). */
  readonly parent: string;
  /** The rows' other columns, by name, in order. */
  readonly rows: (doc: T) => readonly Readonly<Record<string, SqlValue>>[];
  /** Send the inserts with the write's next statement (PostgreSQL), as no error is expected. */
  readonly deferred?: boolean;
  /** The conflict a unique index of the table enforces (a duplicate MRN), for its 409. */
  readonly unique?: UniqueRule;
}

/** A uniqueness rule: its reason, the message (never the values) and the request field. */
export interface UniqueRule {
  readonly reason: 'mrn_duplicate' | 'id_duplicate';
  readonly message: string;
  readonly param: string;
}

/** One criterion: the column (or expression) and how a value of type `V` compares with it. */
export interface Criterion<V> {
  readonly column: string;
  readonly op: Operator<V>;
}

/** FHIR's search parameter types we serve (the CapabilityStatement's `searchParam.type`). */
export type SearchType = 'token' | 'string' | 'date' | 'reference' | 'number';

/** The value types of a resource's criteria by name; `created` is the range every list has. */
export type CriteriaValues<C> = C & { created: CreatedRange };

/**
 * How a FHIR search parameter becomes a criterion: `parse` turns the query value (the list of
 * values when `repeated`) into the criterion's value, or `null` when it names nothing we could
 * have (the search then matches nothing, as a reference to a missing resource does).
 */
export type SearchParameter<C> = {
  [K in keyof CriteriaValues<C> & string]:
    | {
        readonly criterion: K;
        readonly type: SearchType;
        readonly repeated?: false;
        readonly parse: (text: string) => CriteriaValues<C>[K] | null;
      }
    | {
        readonly criterion: K;
        readonly type: SearchType;
        readonly repeated: true;
        readonly parse: (values: readonly string[]) => CriteriaValues<C>[K] | null;
      };
}[keyof CriteriaValues<C> & string];

/** A resource's FHIR face: its type, the search parameters it serves and the filters it always has. */
export interface FhirFace<T, C> {
  readonly type: string;
  /** FHIR search parameter name → the criterion it sets. */
  readonly search: Readonly<Record<string, SearchParameter<C>>>;
  /** Criteria every search of this face carries (a ClaimResponse exists once answered). */
  readonly always?: Readonly<Partial<C>>;
  /** Whether a stored document has this face (a claim still `submitted` has no response). */
  readonly exists?: (doc: T) => boolean;
}

/** A resource: `T` its stored type, `C` its criteria's value types by name. */
export interface Resource<T extends StoredDoc = StoredDoc, C = Record<string, unknown>> {
  /** The `object` name (`patient`), which also names its event family and its 404s. */
  readonly name: string;
  readonly table: string;
  readonly prefix: string;
  /** The scope that reads it (and its events): the `x-scopes` of its retrieve operation. */
  readonly readScope: Scope;
  /** Columns beside `id, livemode, created, updated, data`, in the order they are written. */
  readonly columns: readonly Column<T>[];
  /** List and search criteria by name; a query names the ones it sets. */
  readonly criteria: { readonly [K in keyof C]: Criterion<C[K]> };
  /** The `/v1` list's query fields (beyond the page and `created`) → the criterion each sets. */
  readonly listQuery?: Readonly<Record<string, keyof C & string>>;
  /**
   * Fields holding the id of another resource's document, which must exist in the same mode
   * when written (an appointment's patient and practitioner): checked by the write's rules.
   */
  readonly references?: readonly (keyof T & string)[];
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
  /** Child tables, written after the document (and replaced on update). */
  readonly children?: readonly ChildTable<T>[];
  /** Its FHIR faces (a claim has two: Claim and ClaimResponse). */
  readonly fhir?: readonly FhirFace<T, C>[];
}

/**
 * A resource description with its table and prefix kept as literal types, so the unions of
 * tables and prefixes (server/resources/index.ts) are derived from the modules, not restated.
 *
 * @example export const THING = resource<StoredThing, ThingCriteria>()({ prefix: 'thg', ... });
 */
export function resource<T extends StoredDoc, C>() {
  return <
    const Table extends string,
    const Prefix extends string,
    const FhirType extends string = never,
  >(
    description: Resource<T, C> & {
      readonly table: Table;
      readonly prefix: Prefix;
      readonly fhir?: readonly (FhirFace<T, C> & { readonly type: FhirType })[];
    },
  ) => description;
}

/** FHIR `_id`: our id of the face's type, as any other id of it matches nothing. */
export function idSearch<C extends { id: string }>(prefix: string): SearchParameter<C> {
  return {
    criterion: 'id',
    type: 'token',
    parse: (text: string) => ourIdOf(prefix, text) ?? null,
  } as SearchParameter<C>;
}

/** A reference search parameter to `type` (`Type/{id}` or the id), stored under `prefix`. */
export function referenceSearch<C, K extends keyof C & string>(
  criterion: K,
  type: string,
  prefix: string,
): SearchParameter<C> {
  return {
    criterion,
    type: 'reference',
    parse: (text: string) => ourIdOfReference(type, prefix, text) ?? null,
  } as SearchParameter<C>;
}
