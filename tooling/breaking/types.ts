/** Which way data flows (`request`: what clients send; `response`: what the API sends): the
 * model's one type, which its schema conversion reads too. */
export type { Direction } from '../openapi/json-schema.js';

/** One classified difference between a base and a head OpenAPI document. */
export interface Change {
  /** Stable rule name, e.g. `property-removed`, `enum-value-added`. */
  kind: string;
  /** JSON pointer of the changed node: in the head document, or in the base one when removed. */
  pointer: string;
  /** True when existing clients (or generated SDK users) can break. */
  breaking: boolean;
  /** Why it matters to clients, in one sentence. */
  message: string;
  /** First operation (`METHOD /path`, or `webhook <name>`) through which the change was reached. */
  operation?: string;
  /** Every operation the change reaches, `operation` first: a change to a shared component
   * (parameter, schema, response, header) lists each operation that uses it. */
  operations?: string[];
}

/** A whole OpenAPI document as plain data (YAML/JSON already parsed, external refs bundled):
 * the model's one type. */
export type { OpenApiDocument } from '../../contract/openapi-document.js';
/** A node of a document together with its JSON pointer: the model's type. */
export type { NodeAt } from '../openapi/document.js';
