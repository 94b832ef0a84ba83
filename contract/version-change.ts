/**
 * A dated version change, as data (docs/design.md#versioning). The service is written once, for
 * the latest version; each date that changed the contract has one module in `spec/versions/`,
 * named by its date, saying how the PREVIOUS version differed and how to cross that gap:
 *
 * - `document`: edits that turn this version's OpenAPI document into the previous one's, so
 *   every older document is derived from the hand-written latest one. Each edit names what it
 *   changes (a schema, a parameter, an operation, a tag, `info`), never a position: a pointer
 *   such as `/tags/6/description` silently edits another node once the list is reordered. A
 *   request-side edit is all an older client needs: a request pinned to a version is validated
 *   by that version's document before it is migrated up.
 * - `requests`: per operation, a request of the previous version migrated up to this one, for
 *   what a schema cannot say (a changed representation, not a changed bound);
 * - `objects`: per API object type (`object` field), a response object migrated down;
 * - `events`: per event type, what else an event's `data` needs on the way down (for example
 *   `previous_attributes`, which carries bare fields, not objects);
 * - `errors`: an error envelope migrated down, when the change touched error shapes.
 *
 * The first version has a module too, with no edits: the supported list is the modules' dates,
 * and every list of versions (the `ApiVersion` schema, the header's enum, the clients' constant,
 * the docs picker, the server's registry) is derived from them. Modules import nothing from the
 * server: they are data the server, the generator and the gate all read. `defineVersion` checks
 * a module when it is loaded, so a malformed one fails every tool at once, not a request later.
 */

/** A JSON value as parsed from a body. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/**
 * What an edit addresses, by name: a component schema or parameter, an operation (by its
 * `operationId`), a tag (by its `name`), or the `info` object. `at` is an optional JSON Pointer
 * (RFC 6901) inside it, made of names only (no array positions).
 */
export type EditTarget =
  | { readonly schema: string; readonly at?: string }
  | { readonly parameter: string; readonly at?: string }
  | { readonly operation: string; readonly at?: string }
  | { readonly tag: string; readonly at?: string }
  | { readonly info: true; readonly at?: string };

/** One edit of the document, read as "in the previous version, the node addressed was …". */
export type DocumentEdit =
  | (EditTarget & {
      /** The node's value in the previous version (replaces the newer one whole). */
      readonly was: Json;
      /**
       * `was` states a bound the previous version's validation always applied but its
       * released document did not say (a correction, not a change): the gate accepts the
       * narrower constraints it shows against that release.
       */
      readonly alwaysApplied?: true;
    })
  | (EditTarget & {
      /** The node did not exist in the previous version. */
      readonly didNotExist: true;
    })
  | (EditTarget & {
      /** Text of the newer document's string that read `textWas` before. */
      readonly textNow: string;
      readonly textWas: string;
    })
  | {
      /**
       * Every `example` (and `examples.*.value`) in the document, rewritten by `rewrite`: the
       * examples show the previous shape without each one being listed.
       */
      readonly examples: (value: Json) => Json;
    };

/** The parts of a request the server validates and hands to a handler. */
export interface RequestParts {
  query: unknown;
  body: unknown;
}

/** A request converter: the previous version's request parts in, this version's out. */
export type RequestUp = (parts: RequestParts) => RequestParts;

/** A response converter: this version's value in, the previous version's out. */
export type Down<T = JsonObject> = (value: T) => T;

/** One dated version and how its predecessor differed. */
export interface VersionChange {
  /** The version this module introduces, `YYYY-MM-DD` (the module's file name). */
  readonly date: string;
  /** One paragraph for people: what changed and why. */
  readonly description: string;
  /**
   * The changelog bullets of this date, as `spec/CHANGELOG.md` shows them; breaking ones name
   * what they cover in backticks (a pointer or an operation), as the gate reads them.
   */
  readonly changelog: readonly string[];
  readonly document: readonly DocumentEdit[];
  readonly requests: Readonly<Record<string, RequestUp>>;
  readonly objects: Readonly<Record<string, Down>>;
  readonly events: Readonly<Record<string, Down>>;
  readonly errors?: Down;
  /**
   * Set when this version is being retired (docs/design.md#versioning): `since`, the day it was
   * announced deprecated, and `sunset`, the first day it may no longer be served, both
   * `YYYY-MM-DD` (UTC). Answers in it then carry `Deprecation` and `Sunset`.
   */
  readonly deprecated?: { readonly since: string; readonly sunset: string };
  /**
   * What the owner still has to write for this version, one line each (what `npm run
   * spec:version` could not derive: a converter body, an edit it could not address by name).
   * The gate fails while any is listed or any converter is still a `todo` stub.
   */
  readonly todo?: readonly string[];
}

const TODO = Symbol.for('patient-care.version-todo');

/**
 * A converter the owner has not written yet, as `npm run spec:version` leaves it: it passes the
 * value through unchanged (so a dev loop keeps serving) and carries `note`, which keeps the
 * gate failing until the stub is replaced by the real conversion.
 */
export function todo<T = JsonObject>(note: string): Down<T> {
  const stub: Down<T> = (value) => value;
  return Object.assign(stub, { [TODO]: note });
}

/** Every TODO left in `change`: its `todo` lines and its converters still `todo` stubs. */
export function todosOf(change: VersionChange): string[] {
  const found = [...(change.todo ?? [])];
  const groups = { requests: change.requests, objects: change.objects, events: change.events };
  for (const [group, converters] of Object.entries(groups)) {
    for (const [name, convert] of Object.entries(converters)) {
      const note = (convert as unknown as Record<symbol, unknown>)[TODO];
      if (typeof note === 'string') found.push(`${group}.${name}: ${note}`);
    }
  }
  const errorsNote = (change.errors as unknown as Record<symbol, unknown> | undefined)?.[TODO];
  if (typeof errorsNote === 'string') found.push(`errors: ${errorsNote}`);
  return found;
}

/** A version change with nothing to convert (the first version, or a purely additive date). */
export function noConversions(): Pick<
  VersionChange,
  'document' | 'requests' | 'objects' | 'events'
> {
  return { document: [], requests: {}, objects: {}, events: {} };
}

/**
 * Where a document lists dated versions (an enum each, written from the modules, never by
 * hand): the `ApiVersion` schema, the `PatientCare-Version` parameter and response header.
 */
export const VERSION_LIST_POINTERS = [
  '/components/schemas/ApiVersion/enum',
  '/components/parameters/PatientCareVersion/schema/enum',
  '/components/headers/PatientCare-Version/schema/enum',
] as const;

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Writes the version enums of `document` from `dates` (up to its `info.version`). */
export function fillVersionLists(document: unknown, dates: readonly string[]): void {
  if (!isNode(document) || !isNode(document.info)) return;
  const own = document.info.version;
  const listed = [...dates].sort().filter((date) => typeof own !== 'string' || date <= own);
  for (const pointer of VERSION_LIST_POINTERS) {
    let node: unknown = document;
    for (const token of pointer.split('/').slice(1, -1))
      node = isNode(node) ? node[token] : undefined;
    if (isNode(node)) node.enum = [...listed];
  }
}

const DATED = /^\d{4}-\d{2}-\d{2}$/;
const TARGETS = ['schema', 'parameter', 'operation', 'tag', 'info'] as const;

/** The kind and name an edit addresses; throws on none or several. */
export function editTarget(edit: EditTarget): { kind: (typeof TARGETS)[number]; name: string } {
  const kinds = TARGETS.filter((kind) => kind in edit);
  const [kind] = kinds;
  if (kind === undefined || kinds.length > 1) {
    throw new Error(`a document edit names exactly one of ${TARGETS.join(', ')}`);
  }
  const name = (edit as Record<string, unknown>)[kind];
  if (kind === 'info') return { kind, name: 'info' };
  if (typeof name !== 'string' || name === '') throw new Error(`a ${kind} edit needs a name`);
  return { kind, name };
}

function checkEdit(date: string, edit: DocumentEdit): void {
  if ('examples' in edit) {
    if (typeof edit.examples !== 'function') throw new Error(`${date}: examples is a function`);
    return;
  }
  const { kind, name } = editTarget(edit);
  const where = `${date}: the ${kind} edit of ${name}${edit.at ?? ''}`;
  if (edit.at !== undefined) {
    if (!edit.at.startsWith('/')) throw new Error(`${where}: at is a JSON Pointer starting with /`);
    // A status code under `responses` is a name (`/responses/200`), not an array position.
    const tokens = edit.at.split('/');
    if (tokens.some((token, i) => /^\d+$/.test(token) && tokens[i - 1] !== 'responses')) {
      throw new Error(`${where}: at names a position; address the node by name instead`);
    }
  }
  const forms = ['was', 'didNotExist', 'textNow'].filter((form) => form in edit);
  if (forms.length !== 1)
    throw new Error(`${where}: give exactly one of was, didNotExist, textNow`);
  if ('textNow' in edit && (typeof edit.textNow !== 'string' || typeof edit.textWas !== 'string'))
    throw new Error(`${where}: textNow and textWas are strings`);
}

/**
 * A version module, checked when it is defined: the date is `YYYY-MM-DD`, every edit addresses
 * one named thing without array positions and says one thing about it, converters are
 * functions. Throws with the module's date and the edit at fault.
 */
export function defineVersion<T extends VersionChange>(change: T): T {
  if (!DATED.test(change.date)) throw new Error(`version date ${change.date} is not YYYY-MM-DD`);
  if (typeof change.description !== 'string' || change.description === '') {
    throw new Error(`${change.date}: a version needs a description`);
  }
  for (const edit of change.document) checkEdit(change.date, edit);
  for (const group of [change.requests, change.objects, change.events]) {
    for (const [name, convert] of Object.entries(group)) {
      if (typeof convert !== 'function')
        throw new Error(`${change.date}: ${name} is not a function`);
    }
  }
  return Object.freeze(change);
}
