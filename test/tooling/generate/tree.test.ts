/** tooling/generate/tree.ts: the tree `npm run generate` and the dev loop write. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staleFiles, writeTree } from '../../../tooling/generate/disk.js';
import { type TreeFiles, treeFiles } from '../../../tooling/generate/tree.js';

const root = mkdtempSync(join(tmpdir(), 'tree-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const document = {
  openapi: '3.0.3',
  info: { title: 'Tree', version: '1' },
  paths: {
    '/ping': {
      get: { operationId: 'ping', tags: ['Health'], responses: { '204': { description: 'ok' } } },
    },
  },
};

describe('treeFiles, staleFiles, writeTree', () => {
  const handlersDir = join(root, 'handlers');
  let tree: TreeFiles;
  beforeAll(async () => {
    tree = await treeFiles({
      root,
      document,
      outDir: 'out',
      remakeCommand: 'npm run generate',
      handlersDir,
    });
  });

  it('holds the generated files and a stub per new operation, by absolute path', () => {
    expect([...tree.files.keys()].sort()).toEqual(
      [
        join(root, 'out', 'client.ts'),
        join(root, 'out', 'routes.ts'),
        join(root, 'out', 'types.ts'),
        join(handlersDir, 'health.ts'),
        join(handlersDir, 'index.ts'),
      ].sort(),
    );
    expect(tree.generated).toBe(3);
    expect(tree.report?.added).toEqual([
      { operationId: 'ping', file: join(handlersDir, 'health.ts') },
    ]);
  });

  it('everything is stale before the write and nothing after it', () => {
    const stale = staleFiles(tree.files);
    expect(stale.length).toBe(tree.files.size);
    writeTree(tree.files, stale);
    expect(staleFiles(tree.files)).toEqual([]);
    expect(readFileSync(join(root, 'out', 'routes.ts'), 'utf8')).toBe(
      tree.files.get(join(root, 'out', 'routes.ts')),
    );
  });

  it('leaves handlers alone when asked to', async () => {
    const bare = await treeFiles({
      root,
      document,
      outDir: 'out',
      remakeCommand: 'x',
      handlersDir: null,
    });
    expect(bare.report).toBeNull();
    expect(bare.files.size).toBe(3);
  });
});
