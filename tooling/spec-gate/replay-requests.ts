/**
 * The requests a version's document promises to accept, made from its own examples: every
 * `/v1` operation with its required parameters' examples and each body example, then the same
 * with one optional parameter's example added at a time (optional parameters one by one, so
 * two the service refuses together, such as both cursors of a list, are never sent together).
 */

import { type QueryText, serializeQuery } from '../fuzz/request-parts.js';
import { tryResolveRef } from '../openapi/document.js';
import { listOperations, type OperationModel } from '../openapi/operations.js';

/** One request to send, pinned to the document's version by the caller. */
export interface ExampleRequest {
  operationId: string;
  method: string;
  /** Path with its examples filled in, and the query string. */
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  /** Which key kinds may call the operation (`x-key-kinds`), `null` for any. */
  keyKinds: readonly string[] | null;
  public: boolean;
}

/** The header that pins a version; the replay sets it, whatever the example says. */
const VERSION_HEADER = 'patientcare-version';

function examplesOf(document: unknown, node: Record<string, unknown> | undefined): unknown[] {
  if (node === undefined) return [];
  if ('example' in node) return [node.example];
  const named = node.examples;
  if (named === null || typeof named !== 'object') return [];
  return Object.values(named as Record<string, unknown>)
    .map((entry) => tryResolveRef(document, entry))
    .filter((entry) => entry !== undefined && 'value' in entry)
    .map((entry) => (entry as { value: unknown }).value);
}

function queryText(value: unknown): string | string[] | Record<string, string> {
  if (Array.isArray(value)) return value.map(String);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
  }
  return String(value);
}

interface ParameterValue {
  name: string;
  in: string;
  value: unknown;
}

function build(
  operation: OperationModel,
  values: readonly ParameterValue[],
  body: { present: boolean; value?: unknown },
): ExampleRequest {
  let path = operation.path;
  const query: QueryText = {};
  const headers: Record<string, string> = {};
  for (const p of values) {
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(String(p.value)));
    else if (p.in === 'query') query[p.name] = queryText(p.value);
    else if (p.in === 'header') headers[p.name.toLowerCase()] = String(p.value);
  }
  const search = serializeQuery(query);
  return {
    operationId: operation.operationId,
    method: operation.method.toUpperCase(),
    url: search === '' ? path : `${path}?${search}`,
    headers,
    ...(body.present ? { body: body.value } : {}),
    keyKinds: operation.keyKinds,
    public: operation.public,
  };
}

/** Every example request of the `/v1` operations of `document`. */
export function exampleRequests(document: Record<string, unknown>): ExampleRequest[] {
  const out: ExampleRequest[] = [];
  for (const operation of listOperations(document)) {
    if (!operation.path.startsWith('/v1/')) continue;
    const required: ParameterValue[] = [];
    const optional: ParameterValue[][] = [];
    for (const p of operation.parameters) {
      if (p.in === 'header' && p.name.toLowerCase() === VERSION_HEADER) continue;
      const values = examplesOf(document, p.node).map((value) => ({
        name: p.name,
        in: p.in,
        value,
      }));
      if (p.required) {
        // A required parameter without an example cannot be replayed; the lint demands one.
        const [first] = values;
        if (first !== undefined) required.push(first);
      } else optional.push(values);
    }
    const media = operation.requestBody?.node.content as Record<string, unknown> | undefined;
    const json = media?.['application/json'] ?? Object.values(media ?? {})[0];
    const bodies = examplesOf(document, tryResolveRef(document, json));
    const bodyChoices =
      bodies.length === 0
        ? [{ present: false }]
        : bodies.map((value) => ({ present: true, value }));
    for (const body of bodyChoices) out.push(build(operation, required, body));
    const firstBody = bodyChoices[0] ?? { present: false };
    for (const values of optional) {
      for (const value of values) out.push(build(operation, [...required, value], firstBody));
    }
  }
  return out;
}
