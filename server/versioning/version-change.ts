/**
 * A dated version change, as data (docs/design.md#versioning). The service is written once, for
 * the latest version; each date that changed the contract has one module in `spec/versions/`,
 * named by its date, saying how the PREVIOUS version differed and how to cross that gap:
 *
 * - `document`: edits that turn this version's OpenAPI document into the previous one's, so
 *   every older document is derived from the hand-written latest one;
 * - `requests`: per operation, a request of the previous version migrated up to this one;
 * - `objects`: per API object type (`object` field), a response object migrated down;
 * - `events`: per event type, what else an event's `data` needs on the way down (for example
 *   `previous_attributes`, which carries bare fields, not objects);
 * - `errors`: an error envelope migrated down, when the change touched error shapes.
 *
 * The first version has a module too, with no edits: the supported list is the modules' dates.
 */

/** A JSON value as parsed from a body. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** One edit of the document, read as "in the previous version, the node at `at` was `was`". */
export type DocumentEdit =
  | {
      /** A JSON Pointer (RFC 6901) into the newer document. */
      readonly at: string;
      /** The node's value in the previous version (replaces the newer one whole). */
      readonly was: Json;
    }
  | {
      readonly at: string;
      /** The node did not exist in the previous version. */
      readonly didNotExist: true;
    }
  | {
      readonly at: string;
      /** Text of the newer document's string at `at` that read `textWas` before. */
      readonly textNow: string;
      readonly textWas: string;
    }
  | {
      /**
       * Every `example` (and `examples.*.value`) in the document, rewritten by `rewrite`: the
       * examples show the previous shape without each one being listed by pointer.
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
}

/** A version change with nothing to convert (the first version, or a purely additive date). */
export function noConversions(): Pick<
  VersionChange,
  'document' | 'requests' | 'objects' | 'events'
> {
  return { document: [], requests: {}, objects: {}, events: {} };
}
