/**
 * Imports point from roles to core, never back (issue 23): `contract/` is the runtime half of
 * the model that the server, the client and the toolchain share, so it imports from none of
 * them; the server runs without `tooling/` and takes not even a type from it (what both need,
 * such as the document type, is in `contract/`); the
 * domain rules do not reach into the HTTP layer; nothing outside `test/` imports from it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|mjs|js)$/.test(name) && !name.includes('node_modules'))
    .map((name) => join(folder, name));
}

/** Every relative module a file loads at run time (with `types`, or names a type from), as a
 * path from the repository root. */
function runtimeImports(file: string, types = false): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(
    /^\s*(import|export)\s+(type\s+)?[^;]*?from\s+'(\.[^']+)'/gms,
  )) {
    if (match[2] && !types) continue;
    found.push(relative(ROOT, resolve(ROOT, dirname(file), match[3] ?? '')));
  }
  return found;
}

function offending(folders: string[], forbidden: string[], types = false): string[] {
  return folders.flatMap((folder) =>
    sourceFiles(folder).flatMap((file) =>
      runtimeImports(file, types)
        .filter((target) => forbidden.some((prefix) => target.startsWith(prefix)))
        .map((target) => `${file} → ${target}`),
    ),
  );
}

describe('import direction', () => {
  it('contract/ imports nothing from tooling/, server/, client/, generators/ or test/', () => {
    expect(
      offending(['contract'], ['tooling/', 'server/', 'client/', 'generators/', 'test/']),
    ).toEqual([]);
  });

  it('server/ imports nothing from tooling/ or test/, not even a type', () => {
    expect(offending(['server'], ['tooling/', 'test/'], true)).toEqual([]);
  });

  it('spec/ (the version modules) imports nothing from server/, tooling/ or test/', () => {
    // The server loads the modules; a module loading the server back would be a cycle.
    expect(offending(['spec'], ['server/', 'tooling/', 'test/'])).toEqual([]);
  });

  it('server/domain/ does not import the HTTP layer', () => {
    expect(offending(['server/domain'], ['server/http/'])).toEqual([]);
  });

  it('production code and benches import nothing from test/', () => {
    const folders = ['bench', 'client', 'contract', 'generators', 'scripts', 'server', 'tooling'];
    expect(offending(folders, ['test/'])).toEqual([]);
  });

  it('sees an import it should refuse (the check is not vacuous)', () => {
    expect(runtimeImports('server/http/validation.ts')).toContain('contract/ajv.js');
    const typeOnly = 'contract/openapi-document.js';
    expect(runtimeImports('server/docs/prepared.ts')).not.toContain(typeOnly);
    expect(runtimeImports('server/docs/prepared.ts', true)).toContain(typeOnly);
  });
});
