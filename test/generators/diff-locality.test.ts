/**
 * Generated code a reviewer can read: adding one schema and one operation to a copy of the spec
 * changes only lines about them in `generated/` (no renumbered constants, no rewrapped lists).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../../generators/index.js';
import { lintConfig, loadDocument } from '../../tooling/openapi/load.js';

const ROOT = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'diff-locality-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The hunks of `diff` between two texts: each the lines removed and added together. */
function hunks(before: string, after: string): { removed: string[]; added: string[] }[] {
  writeFileSync(join(work, 'a'), before);
  writeFileSync(join(work, 'b'), after);
  let output = '';
  try {
    output = execFileSync('diff', ['--minimal', '-U0', join(work, 'a'), join(work, 'b')], { encoding: 'utf8' });
  } catch (error) {
    output = (error as { stdout: string }).stdout; // exit 1: the files differ
  }
  const result: { removed: string[]; added: string[] }[] = [];
  for (const line of output.split('\n').slice(2)) {
    if (line.startsWith('@@')) result.push({ removed: [], added: [] });
    else if (line.startsWith('-')) result.at(-1)?.removed.push(line.slice(1));
    else if (line.startsWith('+')) result.at(-1)?.added.push(line.slice(1));
  }
  return result;
}

describe('a one-schema, one-operation change to the spec', async () => {
  const loaded = await loadDocument(join(ROOT, 'spec/openapi.yaml'), await lintConfig(null));
  const before = generate(loaded.bundled).files;
  const changed = structuredClone(loaded.bundled);
  changed.components!.schemas!.Zebra = {
    type: 'object',
    properties: { stripes: { type: 'integer', minimum: 0 } },
  };
  changed.paths['/v1/zebras'] = {
    get: {
      operationId: 'listZebras',
      tags: ['Patients'],
      responses: {
        '200': {
          description: 'The zebras.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Zebra' } } },
        },
      },
    },
  };
  const after = generate(changed).files;

  it.each(['generated/routes.ts', 'generated/types.ts', 'generated/client.ts'])(
    '%s: only additions, each hunk about the new schema or operation',
    (file) => {
      const found = hunks(before.get(file)!, after.get(file)!);
      expect(found.length).toBeGreaterThan(0);
      for (const hunk of found) {
        expect(hunk.removed, `lines removed from ${file}`).toEqual([]);
        expect(hunk.added.join('\n'), `a hunk of ${file}`).toMatch(/zebra/i);
      }
    },
  );
});
