import { posix } from 'node:path';
import { parse } from 'yaml';
import { isObject } from '../breaking/objects.js';
import type { OpenApiDocument } from '../breaking/types.js';
import { escapeToken, unescapeToken } from '../openapi/pointer.js';

/** Reads a file by repository-relative POSIX path; undefined when it does not exist. */
export type ReadText = (path: string) => string | undefined;

/** Where split files are placed inside the bundled document. */
export const BUNDLE_KEY = 'x-bundled';

/**
 * Loads an OpenAPI document and bundles the split files its `$ref`s name (`./schemas/x.yaml#/X`)
 * under `x-bundled/<file>`, rewriting every ref to a local one. Refs stay refs, so recursive
 * schemas keep their cycles instead of being inlined forever. `read` abstracts the source: the
 * working tree, or `git show <rev>:<path>` for a base revision.
 *
 * Other files (Markdown descriptions) are bundled as their text.
 *
 * @throws Error when the entry file or a referenced YAML/JSON file is missing or invalid.
 */
export function loadSpec(entry: string, read: ReadText): OpenApiDocument {
  const entryDir = posix.dirname(entry);
  const bundle: Record<string, unknown> = {};
  const pending: string[] = [];
  const keyOf = (file: string) => posix.relative(entryDir, file);

  const parseFile = (file: string): unknown => {
    const text = read(file);
    if (text === undefined) throw new Error(`${file} not found`);
    // A `$ref` to Markdown (a `description` kept in `spec/guides/*.md`) is text, as Redocly
    // reads it; only YAML and JSON files are documents.
    if (!/\.(ya?ml|json)$/i.test(file)) return text;
    try {
      return parse(text);
    } catch (err) {
      throw new Error(`${file} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  };

  const rewrite = (node: unknown, file: string): void => {
    if (Array.isArray(node)) {
      for (const item of node) rewrite(item, file);
      return;
    }
    if (!isObject(node)) return;
    if (typeof node.$ref === 'string') {
      const [target = '', fragment = ''] = node.$ref.split('#', 2);
      const targetFile =
        target === '' ? file : posix.normalize(posix.join(posix.dirname(file), target));
      if (targetFile !== entry) {
        const key = keyOf(targetFile);
        if (!(key in bundle)) {
          bundle[key] = null;
          pending.push(targetFile);
        }
        node.$ref = `#/${BUNDLE_KEY}/${escapeToken(key)}${fragment}`;
      } else if (target !== '') {
        node.$ref = `#${fragment}`;
      }
    }
    for (const value of Object.values(node)) rewrite(value, file);
  };

  const root = parseFile(entry);
  if (!isObject(root)) throw new Error(`${entry} is not an OpenAPI document`);
  rewrite(root, entry);
  for (let file = pending.shift(); file !== undefined; file = pending.shift()) {
    const content = parseFile(file);
    rewrite(content, file);
    bundle[keyOf(file)] = content;
  }
  if (Object.keys(bundle).length > 0) root[BUNDLE_KEY] = bundle;
  // Not checked further: the diff reads every field defensively, so a base revision with a
  // broken or older shape is still compared rather than refused.
  return root as OpenApiDocument;
}

/** Shows a bundled pointer as the file it came from: `/x-bundled/schemas~1a.yaml/A` →
 * `schemas/a.yaml#/A`. Other pointers are returned unchanged. */
export function displayPointer(ptr: string): string {
  const prefix = `/${BUNDLE_KEY}/`;
  if (!ptr.startsWith(prefix)) return ptr;
  const rest = ptr.slice(prefix.length);
  const cut = rest.indexOf('/');
  const file = unescapeToken(cut < 0 ? rest : rest.slice(0, cut));
  return `${file}#${cut < 0 ? '' : rest.slice(cut)}`;
}
