import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  indexText,
  reconcileHandlers,
  type StubOperation,
  SUPPORT_FILES,
  stubText,
} from '../../generators/handler-stubs.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'handlers', 'basic');

function fixtureFiles(): Map<string, string> {
  return new Map(
    readdirSync(FIXTURES).map((name) => [
      name.replace(/\.txt$/, ''),
      readFileSync(join(FIXTURES, name), 'utf8'),
    ]),
  );
}

const operations: StubOperation[] = [
  { operationId: 'listPatients', method: 'get', path: '/v1/patients', tags: ['Patients'] },
  { operationId: 'createPatient', method: 'post', path: '/v1/patients', tags: ['Patients'] },
  { operationId: 'retrievePatient', method: 'get', path: '/v1/patients/{id}', tags: ['Patients'] },
  {
    operationId: 'createEphemeralKey',
    method: 'post',
    path: '/v1/ephemeral_keys',
    tags: ['Ephemeral Keys', 'Patients'],
  },
];

describe('reconcileHandlers on fixture handler files', () => {
  const existing = fixtureFiles();
  const result = reconcileHandlers(operations, existing);

  it('keeps every hand-written line of a module, in order, and appends the missing stub', () => {
    const before = existing.get('patients.ts')!;
    const after = result.files.get('patients.ts')!;
    const kept = after.split('\n');
    let at = 0;
    for (const line of before.trimEnd().split('\n')) {
      at = kept.indexOf(line, at);
      expect(at, `line lost: ${line}`).toBeGreaterThanOrEqual(0);
    }
    expect(after).toContain(
      "export const createPatient: AppHandler<'createPatient'> = async () =>\n  notImplemented('createPatient');",
    );
    expect(after).toContain("import { notImplemented } from './not-implemented.js';");
    // The existing AppHandler import is reused, not duplicated.
    expect(after.match(/import type \{ AppHandler \}/g)).toHaveLength(1);
  });

  it('adds no stub for a handler a person moved to another module', () => {
    expect(result.files.has('misc.ts')).toBe(false);
    expect(result.report.added.map((a) => a.operationId)).not.toContain('retrievePatient');
  });

  it('creates the first tag’s kebab-case module for a new tag', () => {
    expect(result.report.added).toEqual([
      { operationId: 'createPatient', file: 'patients.ts' },
      { operationId: 'createEphemeralKey', file: 'ephemeral-keys.ts' },
    ]);
    expect(result.files.get('ephemeral-keys.ts')).toBe(
      [
        "import { notImplemented } from './not-implemented.js';",
        "import type { AppHandler } from './types.js';",
        '',
        stubText(operations[3]!),
      ].join('\n'),
    );
  });

  it('reports the handler whose operation left the spec, and keeps it', () => {
    expect(result.report.orphans).toEqual([{ operationId: 'archivePatient', file: 'patients.ts' }]);
    expect(result.files.get('patients.ts')).toContain('export const archivePatient');
  });

  it('rebuilds the index from the modules that hold handlers', () => {
    expect(result.files.get('index.ts')).toBe(
      indexText(['ephemeral-keys.ts', 'misc.ts', 'patients.ts']),
    );
    expect(result.files.get('index.ts')).toContain(
      '} satisfies HandlerMap<OperationTypes, HandlerContext>;',
    );
  });

  it('changes nothing when run again on its own output', () => {
    const next = new Map(existing);
    for (const [name, text] of result.files) next.set(name, text);
    const again = reconcileHandlers(operations, next);
    expect(again.files.size).toBe(0);
    expect(again.report.added).toEqual([]);
  });
});

describe('imports for stubs', () => {
  it('go after the last existing import, even below a leading comment', () => {
    const text = "// Notes.\nimport { z } from 'zod';\n\nexport const other = 1;\n";
    const result = reconcileHandlers([operations[1]!], new Map([['patients.ts', text]]));
    expect(result.files.get('patients.ts')!.split('\n').slice(0, 5)).toEqual([
      '// Notes.',
      "import { z } from 'zod';",
      "import { notImplemented } from './not-implemented.js';",
      "import type { AppHandler } from './types.js';",
      '',
    ]);
  });
});

describe('imports for stubs in hand-written modules', () => {
  const folder = join(import.meta.dirname, '..', '..', 'server', 'handlers');
  const modules = readdirSync(folder).filter(
    (name) => name.endsWith('.ts') && !SUPPORT_FILES.has(name),
  );
  /** `ephemeral-keys.ts` → the tag `Ephemeral Keys` (kebab-cased back to the file). */
  const tagOf = (name: string) =>
    name
      .replace(/\.ts$/, '')
      .split('-')
      .map((word) => word[0]!.toUpperCase() + word.slice(1))
      .join(' ');

  it('are merged into or sorted among the existing ones', () => {
    const text = "import { z } from 'zod';\nimport type { HandlerContext } from './types.js';\n";
    const result = reconcileHandlers([operations[1]!], new Map([['patients.ts', text]]));
    expect(result.files.get('patients.ts')!.split('\n').slice(0, 4)).toEqual([
      "import { z } from 'zod';",
      "import { notImplemented } from './not-implemented.js';",
      "import type { AppHandler, HandlerContext } from './types.js';",
      '',
    ]);
  });

  // Each committed module with a new operation of its tag: Biome (npm run lint:code) would
  // change nothing in the result (before, the stub imports landed after './types.js').
  it.each(modules)(
    '%s with a stub added passes Biome unchanged',
    { timeout: 180_000 },
    async (name) => {
      const text = readFileSync(join(folder, name), 'utf8');
      const added: StubOperation = {
        operationId: 'probeStubOperation',
        method: 'get',
        path: '/v1/probe',
        tags: [tagOf(name)],
      };
      const result = reconcileHandlers([added], new Map([[name, text]]));
      const updated = result.files.get(name);
      expect(result.report.added).toEqual([{ operationId: 'probeStubOperation', file: name }]);
      const biome = spawnSync(
        join('node_modules', '.bin', 'biome'),
        ['check', '--write', `--stdin-file-path=server/handlers/${name}`],
        { input: updated, encoding: 'utf8' },
      );
      // With stdin, Biome prints the file as it would write it: the same text, nothing to fix.
      expect(biome.status, biome.stderr).toBe(0);
      expect(biome.stdout).toBe(updated);
    },
  );
});

describe('stubText', () => {
  it('fits one line when Biome would keep it on one line, else breaks after the arrow', () => {
    const short = stubText({ operationId: 'listA', method: 'get', path: '/a', tags: [] });
    expect(short.split('\n')[1]).toBe(
      "export const listA: AppHandler<'listA'> = async () => notImplemented('listA');",
    );
    const long = stubText({
      operationId: 'retrieveAVeryLongOperationName',
      method: 'get',
      path: '/a',
      tags: [],
    });
    expect(long.split('\n').slice(1, 3)).toEqual([
      "export const retrieveAVeryLongOperationName: AppHandler<'retrieveAVeryLongOperationName'> = async () =>",
      "  notImplemented('retrieveAVeryLongOperationName');",
    ]);
  });
});

describe('the committed handlers folder', () => {
  it('needs no stub for our spec (every operation has a handler or stub)', async () => {
    const { routes } = await import('../../generated/routes.js');
    const folder = join(import.meta.dirname, '..', '..', 'server', 'handlers');
    const files = new Map(
      readdirSync(folder)
        .filter((name) => name.endsWith('.ts'))
        .map((name) => [name, readFileSync(join(folder, name), 'utf8')]),
    );
    const result = reconcileHandlers(
      routes.map((r) => ({ ...r, method: r.method.toLowerCase(), tags: [...r.tags] })),
      files,
    );
    expect(result.report.added).toEqual([]);
    expect(result.files.size).toBe(0);
  });
});
