/**
 * How the spec gate reads the two revisions it compares: through the model's lenient loader
 * (`readLenient` in tooling/openapi/load.ts), from the working tree, a file, or a git revision
 * (`gitReader`), so split files and Markdown descriptions load the same way wherever they come
 * from, and a base of an older or broken shape is still compared.
 */
import { dirname, join, relative, sep } from 'node:path';
import { getAtPointer } from '../../contract/pointer.js';
import type { OpenApiDocument } from '../breaking/types.js';
import { type FileSource, readLenient } from '../openapi/load.js';

export type { FileSource, ReadText } from '../openapi/load.js';

/** One revision of the spec, bundled, and how to name a place in it for people. */
export interface LoadedSpec {
  document: OpenApiDocument;
  /**
   * The pointer as a reader finds it: `schemas/patient.yaml#/Patient/properties/email` (the
   * file relative to the spec's folder) when the node was written in a split file, else the
   * pointer itself. Redocly's bundle moves a split file's schemas into `components`, so the
   * bundled pointer alone would not say which file to open.
   */
  show(pointer: string): string;
}

/**
 * Loads `entry` (relative to `source.root`) and the files it `$ref`s.
 *
 * @throws Error, one line naming the file, when a file is missing or not valid YAML/JSON.
 */
export async function loadSpec(entry: string, source: FileSource): Promise<LoadedSpec> {
  const read = await readLenient(entry, source);
  const folder = dirname(join(source.root, entry));
  return {
    document: read.bundled,
    show(pointer) {
      const origin = read.origin(pointer);
      if (!origin) return pointer;
      const file = /^[a-z][a-z\d+.-]*:/i.test(origin.file)
        ? origin.file
        : relative(folder, origin.file).split(sep).join('/');
      return `${file}${origin.pointer}`;
    },
  };
}

/**
 * A change's pointer as a reader finds it: looked up in the head, or in the base when only the
 * base has it (something removed).
 */
export function showPointer(pointer: string, head: LoadedSpec, base: LoadedSpec): string {
  const inHead = getAtPointer(head.document, pointer) !== undefined;
  const inBase = getAtPointer(base.document, pointer) !== undefined;
  return (inHead || !inBase ? head : base).show(pointer);
}
