/**
 * Deriving an older version's OpenAPI document from the latest one: each change newer than the
 * target undoes its edits, newest first; `info.version` becomes the target, and the enums of
 * dated versions (`ApiVersion`, the `PatientCare-Version` header) list only the dates up to it.
 * Edits name what they change (a schema, a parameter, an operation, a tag, `info`); the name
 * is found in the document here, so a reordered list never makes an edit land elsewhere.
 * Pure: document in, new document out.
 */
import { HTTP_METHODS } from '../../contract/openapi-document.js';
import { appendPointer, getAtPointer, parsePointer, toPointer } from '../../contract/pointer.js';
import type { VersionRegistry } from './registry.js';
import {
  type DocumentEdit,
  type EditTarget,
  editTarget,
  fillVersionLists,
  type Json,
  type JsonObject,
} from './version-change.js';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parent container of a pointer and the last token; throws on a path that is not there. */
function parentOf(
  document: JsonObject,
  pointer: string,
): { parent: JsonObject | Json[]; key: string } {
  const tokens = parsePointer(pointer);
  const key = tokens.pop();
  if (key === undefined) throw new Error(`cannot edit the document root (${pointer})`);
  const node = getAtPointer(document, toPointer(tokens)) as Json | undefined;
  if (node === undefined) throw new Error(`version edit: ${pointer} does not exist`);
  if (!isObject(node) && !Array.isArray(node))
    throw new Error(`version edit: ${pointer} has no parent object`);
  return { parent: node, key };
}

function rewriteExamples(node: Json, rewrite: (value: Json) => Json): Json {
  if (Array.isArray(node)) return node.map((item) => rewriteExamples(item, rewrite));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(node)) {
    if (key === 'example') out[key] = rewrite(child);
    else if (key === 'examples' && isObject(child)) {
      const examples: JsonObject = {};
      for (const [name, entry] of Object.entries(child)) {
        examples[name] =
          isObject(entry) && 'value' in entry
            ? { ...entry, value: rewrite(entry.value as Json) }
            : rewriteExamples(entry, rewrite);
      }
      out[key] = examples;
    } else out[key] = rewriteExamples(child, rewrite);
  }
  return out;
}

/** The JSON Pointer of what `edit` names in `document`; throws when it is not there. */
export function editPointer(document: JsonObject, edit: EditTarget): string {
  const { kind, name } = editTarget(edit);
  const inside = parsePointer(edit.at ?? '');
  let base: string;
  if (kind === 'schema') base = appendPointer('/components/schemas', name);
  else if (kind === 'parameter') base = appendPointer('/components/parameters', name);
  else if (kind === 'info') base = '/info';
  else if (kind === 'tag') {
    const tags = Array.isArray(document.tags) ? document.tags : [];
    const index = tags.findIndex((tag) => isObject(tag) && tag.name === name);
    if (index < 0) throw new Error(`version edit: no tag named ${name}`);
    base = `/tags/${index}`;
  } else {
    base = '';
    const paths = isObject(document.paths) ? document.paths : {};
    for (const [path, item] of Object.entries(paths)) {
      if (!isObject(item)) continue;
      const method = HTTP_METHODS.find(
        (m) => isObject(item[m]) && (item[m] as JsonObject).operationId === name,
      );
      if (method !== undefined) base = appendPointer('/paths', path, method);
    }
    if (base === '') throw new Error(`version edit: no operation ${name}`);
  }
  return appendPointer(base, ...inside);
}

/** Applies one edit to `document` in place (examples: returns the rewritten document). */
function applyEdit(document: JsonObject, edit: DocumentEdit): JsonObject {
  if ('examples' in edit) return rewriteExamples(document, edit.examples) as JsonObject;
  const at = editPointer(document, edit);
  const { parent, key } = parentOf(document, at);
  if ('textNow' in edit) {
    const text = (parent as JsonObject)[key];
    if (typeof text !== 'string' || !text.includes(edit.textNow)) {
      throw new Error(`version edit: the text at ${at} no longer holds what the edit names`);
    }
    (parent as JsonObject)[key] = text.replace(edit.textNow, edit.textWas);
    return document;
  }
  if (Array.isArray(parent)) {
    const index = Number(key);
    if ('didNotExist' in edit) parent.splice(index, 1);
    else parent[index] = structuredClone(edit.was);
    return document;
  }
  if ('didNotExist' in edit) {
    if (!(key in parent)) throw new Error(`version edit: ${at} does not exist`);
    delete parent[key];
  } else parent[key] = structuredClone(edit.was);
  return document;
}

/**
 * The document of `version`, derived from `latest` (which is not modified).
 *
 * @example deriveDocument(spec, registry, '2026-11-01').info.version // '2026-11-01'
 */
export function deriveDocument(
  latest: unknown,
  registry: VersionRegistry,
  version: string,
): JsonObject {
  let document = structuredClone(latest) as JsonObject;
  for (const change of registry.changesAbove(version)) {
    for (const edit of change.document) document = applyEdit(document, edit);
  }
  (document.info as JsonObject).version = version;
  fillVersionLists(document, registry.supported);
  return document;
}

/**
 * The pointers, in `version`'s document, of edits that state a bound the server always applied
 * (`alwaysApplied`): constraints there are corrections of the released text, not changes.
 */
export function statedBounds(
  latest: unknown,
  registry: VersionRegistry,
  version: string,
): string[] {
  const document = structuredClone(latest) as JsonObject;
  const pointers: string[] = [];
  for (const change of registry.changesAbove(version)) {
    for (const edit of change.document) {
      if ('was' in edit && edit.alwaysApplied === true) pointers.push(editPointer(document, edit));
    }
  }
  return pointers;
}
