/** tooling/generate/handler-exports.ts: what each handler module exports, kept by content. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportsOf, reconcileHandlers } from '../../../generators/handler-stubs.js';
import { cachedExports } from '../../../tooling/generate/handler-exports.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'handlers', 'basic');
const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

const MODULE = [
  "import type { AppHandler } from './types.js';",
  "export const listThings: AppHandler<'listThings'> = async () => ({ status: 200, body: [] });",
  'export function helper() {}',
  '',
].join('\n');

describe('the handler exports kept by content', () => {
  let previous: string | undefined;
  let cache: string;
  beforeEach(() => {
    previous = process.env.PATIENT_CARE_CACHE_DIR;
    cache = mkdtempSync(join(tmpdir(), 'pc-handler-exports-'));
    temporary.push(cache);
    process.env.PATIENT_CARE_CACHE_DIR = cache;
  });
  afterEach(() => {
    if (previous === undefined) delete process.env.PATIENT_CARE_CACHE_DIR;
    else process.env.PATIENT_CARE_CACHE_DIR = previous;
  });

  it('answers as the parser does, from the kept entry on the next run', () => {
    const first = cachedExports('/nowhere');
    expect(first.read('things.ts', MODULE)).toEqual(exportsOf('things.ts', MODULE));
    first.save();
    const [file] = readdirSync(join(cache, 'handler-exports'));
    expect(file).toMatch(/^[0-9a-f]{64}\.json$/);
    const path = join(cache, 'handler-exports', file!);
    // The kept entry is what a later run answers: altered on disk, the alteration comes back.
    const kept = JSON.parse(readFileSync(path, 'utf8')) as Record<string, { names: string[] }>;
    for (const entry of Object.values(kept)) entry.names.push('fromTheCache');
    writeFileSync(path, JSON.stringify(kept));
    expect([...cachedExports('/nowhere').read('things.ts', MODULE).names]).toContain(
      'fromTheCache',
    );
    // Other text (or another name) is parsed afresh.
    const edited = `${MODULE}export const other = 1;\n`;
    const fresh = cachedExports('/nowhere').read('things.ts', edited);
    expect([...fresh.names].sort()).toEqual(['helper', 'listThings', 'other']);
    expect([...cachedExports('/nowhere').read('others.ts', MODULE).names]).not.toContain(
      'fromTheCache',
    );
  });

  it('gives a fresh copy each time, and ignores a damaged file', () => {
    const exports = cachedExports('/nowhere');
    exports.read('things.ts', MODULE).names.add('added by the caller');
    exports.save();
    expect([...cachedExports('/nowhere').read('things.ts', MODULE).names]).not.toContain(
      'added by the caller',
    );
    const [file] = readdirSync(join(cache, 'handler-exports'));
    writeFileSync(join(cache, 'handler-exports', file!), '{"damaged":');
    expect(cachedExports('/nowhere').read('things.ts', MODULE)).toEqual(
      exportsOf('things.ts', MODULE),
    );
  });

  it('writes nothing when every module was known', () => {
    const exports = cachedExports('/nowhere');
    exports.read('things.ts', MODULE);
    exports.save();
    const path = join(cache, 'handler-exports');
    rmSync(path, { recursive: true });
    const again = cachedExports('/nowhere');
    again.save();
    expect(existsSync(path)).toBe(false);
  });

  it('reconciles the fixture handlers the same with the kept answers as without', () => {
    const existing = new Map(
      readdirSync(FIXTURES).map((name) => [
        name.replace(/\.txt$/, ''),
        readFileSync(join(FIXTURES, name), 'utf8'),
      ]),
    );
    const operations = [
      { operationId: 'listPatients', method: 'get', path: '/v1/patients', tags: ['Patients'] },
      { operationId: 'newThing', method: 'post', path: '/v1/things', tags: ['Patients'] },
    ];
    const plain = reconcileHandlers(operations, existing);
    const warm = cachedExports('/nowhere');
    expect(reconcileHandlers(operations, existing, warm.read)).toEqual(plain);
    warm.save();
    expect(reconcileHandlers(operations, existing, cachedExports('/nowhere').read)).toEqual(plain);
  });
});
