import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { GENERATE_INPUTS, inputsKey, readRun, writeRun } from '../../tooling/generate/cache.js';
import { HANDLER_PARSE_INPUTS } from '../../tooling/generate/handler-exports.js';
import { scratchRepository } from '../../tooling/generate/scratch-repository.js';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const temporary: string[] = [];

function folder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/** The repository files `entry` imports, directly or not (relative specifiers only). */
function importGraph(entries: string[]): string[] {
  const seen = new Set<string>();
  const pending = entries.map((entry) => join(ROOT, entry));
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    // Imports, and worker entries (`new URL('./worker.ts', import.meta.url)`).
    for (const match of text.matchAll(
      /(?:from|import|new URL)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g,
    )) {
      let target = resolve(dirname(file), match[1]!);
      if (target.endsWith('.js') && !existsSync(target)) target = `${target.slice(0, -3)}.ts`;
      if (existsSync(target)) pending.push(target);
    }
  }
  return [...seen].map((file) => relative(ROOT, file));
}

describe('the content cache of npm run generate', () => {
  it('covers every module generate imports', () => {
    const graph = importGraph(['scripts/generate.ts']);
    expect(graph.length).toBeGreaterThan(20);
    const uncovered = graph.filter(
      (file) => !GENERATE_INPUTS.some((input) => file === input || file.startsWith(`${input}/`)),
    );
    expect(uncovered).toEqual([]);
  });

  it("covers the types thread's entry module (started by URL)", () => {
    expect(importGraph(['scripts/generate.ts'])).toContain('tooling/generate/types-worker.ts');
  });

  it('keys the kept handler exports by every module the handler parser imports', () => {
    const graph = importGraph(['generators/handler-stubs.ts']);
    expect(graph).toContain('generators/handler-stubs.ts');
    const uncovered = graph.filter(
      (file) =>
        !HANDLER_PARSE_INPUTS.some((input) => file === input || file.startsWith(`${input}/`)),
    );
    expect(uncovered).toEqual([]);
  });

  it('changes its key when an input file changes, appears or goes, and only then', () => {
    const root = folder('pc-cache-key-');
    mkdirSync(join(root, 'spec', 'guides'), { recursive: true });
    writeFileSync(join(root, 'spec', 'openapi.yaml'), 'openapi: 3.0.3\n');
    writeFileSync(join(root, 'spec', 'guides', 'a.md'), 'A guide\n');
    const key = () => inputsKey(root, ['spec', 'generators'], ['generated', 'npm run generate']);
    const first = key();
    expect(key()).toBe(first);
    writeFileSync(join(root, 'spec', 'guides', 'a.md'), 'A guide, edited\n');
    const edited = key();
    expect(edited).not.toBe(first);
    writeFileSync(join(root, 'spec', 'guides', 'b.md'), 'Another\n');
    const added = key();
    expect(added).not.toBe(edited);
    mkdirSync(join(root, 'generators'));
    expect(key()).not.toBe(added);
    rmSync(join(root, 'generators'), { recursive: true });
    rmSync(join(root, 'spec', 'guides', 'b.md'));
    expect(key()).toBe(edited);
    expect(inputsKey(root, ['spec'], ['generated/versions/2026-11-01'])).not.toBe(
      inputsKey(root, ['spec'], ['generated']),
    );
  });

  it('reads back what it wrote, and nothing for a damaged entry', () => {
    const cache = folder('pc-cache-entries-');
    const previous = process.env.PATIENT_CARE_CACHE_DIR;
    process.env.PATIENT_CARE_CACHE_DIR = cache;
    try {
      const entry = {
        files: [['generated/types.ts', 'text\n']] as [string, string][],
        generated: 1,
        operations: 2,
        report: null,
      };
      writeRun(ROOT, 'k1', entry);
      expect(readRun(ROOT, 'k1')).toEqual(entry);
      expect(readRun(ROOT, 'k2')).toBeUndefined();
      writeFileSync(join(cache, 'k1.json'), '{"format":1,"run":');
      expect(readRun(ROOT, 'k1')).toBeUndefined();
    } finally {
      if (previous === undefined) delete process.env.PATIENT_CARE_CACHE_DIR;
      else process.env.PATIENT_CARE_CACHE_DIR = previous;
    }
  });

  it('--check still finds a hand edit when the inputs are cached, and a spec edit is rebuilt', async () => {
    const repo = folder('pc-cache-repo-');
    const cache = folder('pc-cache-dir-');
    scratchRepository(ROOT, repo);
    const generate = async (...args: string[]) => {
      try {
        const { stdout, stderr } = await run(
          process.execPath,
          ['--import', './tooling/node/ts-resolve.mjs', 'scripts/generate.ts', ...args],
          { cwd: repo, env: { ...process.env, PATIENT_CARE_CACHE_DIR: cache } },
        );
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    const first = await generate('--check');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).not.toContain('cache:');
    const cached = await generate('--check');
    expect(cached.code, cached.stderr).toBe(0);
    expect(cached.stdout).toContain('cache:');

    const routes = join(repo, 'generated', 'routes.ts');
    const original = readFileSync(routes, 'utf8');
    writeFileSync(routes, `${original}// edited by hand\n`);
    const handEdited = await generate('--check');
    expect(handEdited.stdout).toContain('cache:');
    expect(handEdited.code).toBe(1);
    expect(handEdited.stderr).toContain('generated/routes.ts');
    const remade = await generate();
    expect(remade.code, remade.stderr).toBe(0);
    expect(readFileSync(routes, 'utf8')).toBe(original);

    const spec = join(repo, 'spec', 'openapi.yaml');
    const text = readFileSync(spec, 'utf8');
    const at = text.indexOf('\n  schemas:\n');
    expect(at).toBeGreaterThan(0);
    // A new component schema: the types change, so the cached text must not be used.
    writeFileSync(
      spec,
      `${text.slice(0, at)}\n  schemas:\n    CacheProbe:\n      type: object\n      description: Added by the cache test.\n      properties:\n        note:\n          type: string\n${text.slice(at + '\n  schemas:\n'.length)}`,
    );
    const specEdited = await generate('--check');
    expect(specEdited.stdout).not.toContain('cache:');
    expect(specEdited.code).toBe(1);
    expect(specEdited.stderr).toContain('generated/types.ts');
  }, 180_000);
});
