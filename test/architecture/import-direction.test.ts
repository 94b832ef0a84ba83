/**
 * Imports point from roles to core, never back (issue 23): `contract/` is the runtime half of
 * the model that the server, the client and the toolchain share, so it imports from none of
 * them; the server runs without `tooling/` and takes not even a type from it (what both need,
 * such as the document type, is in `contract/`); the
 * domain rules do not reach into the HTTP layer; nothing outside `test/` imports from it.
 *
 * Inside the server the layering of docs/design.md holds, type-only imports included, there is
 * no import cycle in `server/` or `tooling/` (issue 45), and `server/` has no `any`. Imports are
 * read with the TypeScript parser, so `import type`, `export … from`, side-effect imports and
 * `import()` all count, and text in comments or strings never does.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|mts|mjs|js)$/.test(name) && !name.includes('node_modules'))
    .map((name) => join(folder, name));
}

function parse(file: string, text = readFileSync(join(ROOT, file), 'utf8')): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

/** A specifier as a path from the repository root: the `.ts` source a `.js` specifier names
 * when there is one (so the graph's nodes are the files on disk). */
function target(file: string, specifier: string): string {
  const path = relative(ROOT, resolve(ROOT, dirname(file), specifier));
  const source = path.replace(/\.js$/, '.ts');
  return source !== path && existsSync(join(ROOT, source)) ? source : path;
}

interface Import {
  target: string;
  /** `import type …` or `export type … from`: gone at run time. */
  typeOnly: boolean;
}

/** Every relative module a file names: static and dynamic imports and re-exports. */
function importsOf(file: string, text?: string): Import[] {
  const found: Import[] = [];
  const visit = (node: ts.Node): void => {
    let specifier: ts.Expression | undefined;
    let typeOnly = false;
    if (ts.isImportDeclaration(node)) {
      specifier = node.moduleSpecifier;
      typeOnly = node.importClause?.isTypeOnly ?? false;
    } else if (ts.isExportDeclaration(node)) {
      specifier = node.moduleSpecifier;
      typeOnly = node.isTypeOnly;
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      specifier = node.arguments[0];
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      specifier = node.argument.literal;
      typeOnly = true;
    }
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.')) {
      found.push({ target: target(file, specifier.text), typeOnly });
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(file, text));
  return found;
}

/** The modules a file loads at run time, or with `types` every module it names. */
function runtimeImports(file: string, types = false): string[] {
  return importsOf(file)
    .filter((found) => types || !found.typeOnly)
    .map((found) => found.target);
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

type Graph = Map<string, string[]>;

/** Files and every module they name, type-only imports included. */
function importGraph(folders: string[]): Graph {
  const graph: Graph = new Map();
  for (const file of folders.flatMap(sourceFiles)) graph.set(file, runtimeImports(file, true));
  return graph;
}

/**
 * One cycle per strongly connected component of the graph (Tarjan), each as the files in
 * import order with the first repeated at the end, so a failure names the files to untangle.
 */
function importCycles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const edges = (file: string) => (graph.get(file) ?? []).filter((next) => graph.has(next));
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.size - 1);
    stack.push(file);
    onStack.add(file);
    for (const next of edges(file)) {
      if (!index.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component = new Set<string>();
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.add(member);
      if (member === file) break;
    }
    if (component.size > 1 || edges(file).includes(file)) {
      cycles.push(cycleThrough(file, component, edges));
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return cycles;
}

/** The shortest way from `start` back to itself inside its component (breadth first). */
function cycleThrough(
  start: string,
  component: Set<string>,
  edges: (file: string) => string[],
): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    for (const next of edges(at)) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let step = at; step !== start; step = cameFrom.get(step) ?? start) {
          path.splice(1, 0, step);
        }
        return [...path, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, at);
        queue.push(next);
      }
    }
  }
  return [...component];
}

/**
 * docs/design.md's layering, lowest first: a file imports from its own layer or a lower one
 * only. Server folders outside the line (http, webhooks, audit, …) are not ranked.
 */
const LAYERS: string[][] = [
  ['server/db/'],
  ['server/sql/', 'server/fhir/id-text.ts', 'server/fhir/search/'],
  ['server/resources/'],
  ['server/repos/'],
  ['server/domain/'],
  ['server/fhir/faces.ts', 'server/fhir/mapping/'],
  ['server/handlers/'],
];

function layerOf(file: string): number {
  return LAYERS.findIndex((layer) => layer.some((prefix) => file.startsWith(prefix)));
}

function upwardImports(graph: Graph): string[] {
  return [...graph].flatMap(([file, targets]) =>
    targets
      .filter((target) => layerOf(file) >= 0 && layerOf(target) > layerOf(file))
      .map((target) => `${file} → ${target}`),
  );
}

/** Every `any` type in a file (`: any`, `any[]`, `as any`, `<any>`, …), as `file:line`. */
function anyTypes(file: string, text?: string): string[] {
  const source = parse(file, text);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.AnyKeyword) {
      found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
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
    expect(runtimeImports('server/http/validation.ts')).toContain('contract/ajv.ts');
    const typeOnly = 'contract/openapi-document.ts';
    expect(runtimeImports('server/docs/prepared.ts')).not.toContain(typeOnly);
    expect(runtimeImports('server/docs/prepared.ts', true)).toContain(typeOnly);
  });

  it('reads every form of import, and none in a comment or a string', () => {
    const text = [
      "import type { A } from './a.js';",
      "import { type B } from './b.js';",
      "export { C } from './c.js';",
      "export type { D } from './d.js';",
      "import './e.js';",
      "const f = await import('./f.js');",
      "type G = import('./g.js').G;",
      "// import { H } from './h.js';",
      'const i = "import { I } from \'./i.js\'";',
    ].join('\n');
    expect(importsOf('server/x.ts', text)).toEqual([
      { target: 'server/a.js', typeOnly: true },
      { target: 'server/b.js', typeOnly: false },
      { target: 'server/c.js', typeOnly: false },
      { target: 'server/d.js', typeOnly: true },
      { target: 'server/e.js', typeOnly: false },
      { target: 'server/f.js', typeOnly: false },
      { target: 'server/g.js', typeOnly: true },
    ]);
  });
});

describe('import cycles (issue 45)', () => {
  it('server/ and tooling/ have none, type-only imports included', () => {
    expect(importCycles(importGraph(['server', 'tooling']))).toEqual([]);
  });

  it('finds a cycle and names its files in order (the check is not vacuous)', () => {
    const graph: Graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(importCycles(graph)).toEqual([
      ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
      ['e.ts', 'e.ts'],
    ]);
  });
});

describe('server layering (docs/design.md)', () => {
  it('no layer imports from a layer above it, type-only imports included', () => {
    expect(upwardImports(importGraph(['server']))).toEqual([]);
  });

  it('server/resources/ imports nothing from repos/, domain/ or handlers/', () => {
    const above = ['server/repos/', 'server/domain/', 'server/handlers/'];
    expect(offending(['server/resources'], above, true)).toEqual([]);
  });

  it('refuses a resource module that reads a repository (the check is not vacuous)', () => {
    const graph: Graph = new Map([
      ['server/resources/patient.ts', ['server/repos/records.ts', 'server/sql/criteria.ts']],
      ['server/handlers/patients.ts', ['server/repos/records.ts']],
    ]);
    expect(upwardImports(graph)).toEqual(['server/resources/patient.ts → server/repos/records.ts']);
  });
});

describe('no any in server/', () => {
  it('no file declares or casts to any', () => {
    expect(sourceFiles('server').flatMap((file) => anyTypes(file))).toEqual([]);
  });

  it('finds every spelling, and none in a comment or a string (the check is not vacuous)', () => {
    const text = [
      'let a: any;',
      'const b: any[] = [] as any;',
      'const c = <any>d;',
      'const e: Array<any> = [];',
      '// f: any',
      "const g = 'h as any';",
      'const many: number = 1;',
    ].join('\n');
    expect(anyTypes('x.ts', text)).toEqual(['x.ts:1', 'x.ts:2', 'x.ts:2', 'x.ts:3', 'x.ts:4']);
  });
});
