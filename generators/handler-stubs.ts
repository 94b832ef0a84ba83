/**
 * Handler stubs: one per Operation Object (OpenAPI 3.0.3 §4.7.10) that has no handler yet, in
 * `server/handlers/<first-tag-kebab>.ts` (Operation `tags`, §4.7.10), plus the handler index.
 *
 * Pure: existing file texts in, new texts and a report out. Reading what a module exports uses
 * the TypeScript parser (already loaded for the types); editing a module that needs stubs uses
 * ts-morph, loaded only then (its import alone costs about as much as generating our spec).
 * Stubs go in as one block per file and the imports as one call, so hand-written lines are
 * never touched and the cost stays linear in operations (ts-morph fed one node at a time is
 * quadratic: each edit re-walks the file).
 */
import { createRequire } from 'node:module';
import type { SourceFile } from 'ts-morph';
import type * as TypeScript from 'typescript';
import { kebabCase, literal } from './names.js';

const require = createRequire(import.meta.url);
/**
 * TypeScript, loaded with `require` (an ESM import of this 9 MB CommonJS module costs ~1 s, see
 * types.ts) on first use: `npm run generate` answered from its cache imports this module only to
 * compare files and never parses a handler.
 */
let loadedTs: typeof TypeScript | undefined;
function typescript(): typeof TypeScript {
  loadedTs ??= require('typescript') as typeof TypeScript;
  return loadedTs;
}

/** What the reconciliation needs to know about an operation. */
export interface StubOperation {
  operationId: string;
  method: string;
  path: string;
  tags: readonly string[];
}

export interface StubReport {
  /** Stubs added this run, with the file that received each. */
  added: { operationId: string; file: string }[];
  /** Handlers whose operation is no longer in the spec (kept; a person decides). */
  orphans: { operationId: string; file: string }[];
}

export interface StubResult {
  /** New or changed files (names relative to the handlers folder); unchanged ones are absent. */
  files: Map<string, string>;
  report: StubReport;
}

/** Files of the handlers folder that are not handler modules. */
export const SUPPORT_FILES: ReadonlySet<string> = new Set([
  'index.ts',
  'types.ts',
  'not-implemented.ts',
]);

const INDEX_HEADER =
  '// Maintained by scripts/generate.ts (npm run generate): one spread per handler module.';
const LINE_WIDTH = 100;
const HANDLER_TYPE = /^AppHandler<\s*['"]([^'"]+)['"]\s*>$/;
const STUB_IMPORTS = [
  { name: 'notImplemented', from: './not-implemented.js', typeOnly: false },
  { name: 'AppHandler', from: './types.js', typeOnly: true },
] as const;

/** Reads what a handler module exports: {@link exportsOf}, or the same answer kept earlier. */
export type ExportsReader = (name: string, text: string) => ModuleExports;

/**
 * Adds a stub for every operation without a handler and rebuilds `index.ts`. `readExports`
 * gives each module's exports (tooling/generate/handler-exports.ts keeps them by content).
 *
 * @example reconcileHandlers(ops, new Map([['patients.ts', text]])).report.added
 */
export function reconcileHandlers(
  operations: readonly StubOperation[],
  existing: ReadonlyMap<string, string>,
  readExports: ExportsReader = exportsOf,
): StubResult {
  const operationIds = new Set(operations.map((operation) => operation.operationId));
  const modules = new Map<string, ModuleExports>();
  const report: StubReport = { added: [], orphans: [] };

  for (const name of [...existing.keys()].sort()) {
    const text = existing.get(name);
    if (text === undefined || SUPPORT_FILES.has(name) || !name.endsWith('.ts')) continue;
    const found = readExports(name, text);
    modules.set(name, found);
    for (const [exportName, operationId] of found.annotated) {
      if (!operationIds.has(operationId)) report.orphans.push({ operationId, file: name });
      else if (exportName !== operationId) {
        report.orphans.push({ operationId: exportName, file: name });
      }
    }
  }
  const implemented = new Set([...modules.values()].flatMap((found) => [...found.names]));

  const missing = new Map<string, StubOperation[]>();
  for (const operation of operations) {
    if (implemented.has(operation.operationId)) continue;
    const file = `${kebabCase(operation.tags[0] ?? 'default') || 'default'}.ts`;
    const list = missing.get(file) ?? [];
    list.push(operation);
    missing.set(file, list);
    report.added.push({ operationId: operation.operationId, file });
  }

  const files = new Map<string, string>();
  for (const [name, list] of missing) {
    const stubs = list.map(stubText).join('\n');
    const found = modules.get(name);
    const text = existing.get(name);
    if (found && text !== undefined)
      files.set(name, appendStubs(name, text, found.imported, stubs));
    else files.set(name, `${STUB_IMPORTS.map(importLine).join('\n')}\n\n${stubs}`);
    const names = found?.names ?? new Set<string>();
    for (const operation of list) names.add(operation.operationId);
    modules.set(name, { names, annotated: new Map(), imported: new Set() });
  }

  const handlerModules = [...modules]
    .filter(([, found]) => [...found.names].some((name) => operationIds.has(name)))
    .map(([name]) => name)
    .sort();
  const index = indexText(handlerModules);
  if (existing.get('index.ts') !== index) files.set('index.ts', index);
  report.orphans.sort((a, b) => a.operationId.localeCompare(b.operationId));
  return { files, report };
}

/** What a handler module exports and imports; the caller may change it (it is its own copy). */
export interface ModuleExports {
  /** Exported value names. */
  names: Set<string>;
  /** Export name → operationId, for exports declared `AppHandler<'operationId'>`. */
  annotated: Map<string, string>;
  /** Names the module imports. */
  imported: Set<string>;
}

/** What a module exports and imports, read with the TypeScript parser. */
export function exportsOf(name: string, text: string): ModuleExports {
  const ts = typescript();
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: ModuleExports = { names: new Set(), annotated: new Map(), imported: new Set() };
  const exported = (node: TypeScript.Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) found.imported.add(element.name.text);
      }
    } else if (ts.isVariableStatement(statement) && exported(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name)) {
          // `export const [a, b] = …`: each bound name is an export (typed by the handler map).
          for (const element of declaration.name.elements) {
            if (ts.isBindingElement(element) && ts.isIdentifier(element.name)) {
              found.names.add(element.name.text);
            }
          }
          continue;
        }
        found.names.add(declaration.name.text);
        const initializer = declaration.initializer;
        // `export const x = (async () => ...) satisfies AppHandler<'x'>` counts as annotated too.
        const typeNode =
          declaration.type ??
          (initializer && ts.isSatisfiesExpression(initializer) ? initializer.type : undefined);
        const match = typeNode ? HANDLER_TYPE.exec(typeNode.getText(file)) : null;
        if (match?.[1]) found.annotated.set(declaration.name.text, match[1]);
      }
    } else if (ts.isFunctionDeclaration(statement) && statement.name && exported(statement)) {
      found.names.add(statement.name.text);
    } else if (
      ts.isExportDeclaration(statement) &&
      !statement.moduleSpecifier &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements) found.names.add(element.name.text);
    }
  }
  return found;
}

/** Adds the missing imports (one ts-morph call) and appends the stubs (one more). */
function appendStubs(name: string, text: string, imported: Set<string>, stubs: string): string {
  const { Project, QuoteKind } = loadTsMorph();
  const project = new Project({
    useInMemoryFileSystem: true,
    skipLoadingLibFiles: true,
    manipulationSettings: { quoteKind: QuoteKind.Single },
  });
  const file = project.createSourceFile(`/handlers/${name}`, text);
  const wanted = STUB_IMPORTS.filter((entry) => !imported.has(entry.name));
  for (const entry of wanted) addImportInOrder(file, entry);
  const current = file.getFullText();
  const separator = current.endsWith('\n\n') ? '' : current.endsWith('\n') ? '\n' : '\n\n';
  file.insertText(current.length, `${separator}${stubs}`);
  return file.getFullText();
}

/**
 * Adds `entry` where Biome's organizeImports wants it, so `npm run lint:code` passes on the
 * file: into an existing import of the same module (names sorted), else before the first
 * `./` import that sorts after it (our stub imports are all `./`, which Biome puts after
 * packages and `../` paths), else after the last import.
 */
function addImportInOrder(file: SourceFile, entry: (typeof STUB_IMPORTS)[number]): void {
  const imports = file.getImportDeclarations();
  const same = imports.find(
    (declaration) =>
      declaration.getModuleSpecifierValue() === entry.from &&
      declaration.isTypeOnly() === entry.typeOnly &&
      declaration.getNamespaceImport() === undefined,
  );
  if (same !== undefined) {
    const names = same.getNamedImports().map((named) => named.getName());
    const at = names.findIndex((name) => compareNames(name, entry.name) > 0);
    same.insertNamedImport(at === -1 ? names.length : at, entry.name);
    return;
  }
  const structure = {
    namedImports: [entry.name],
    moduleSpecifier: entry.from,
    isTypeOnly: entry.typeOnly,
  };
  const next = imports.find((declaration) => {
    const from = declaration.getModuleSpecifierValue();
    return from.startsWith('./') && from > entry.from;
  });
  // Not `addImportDeclaration` with an index: ts-morph counts comments as statements.
  if (next === undefined) file.addImportDeclaration(structure);
  else file.insertImportDeclaration(file.getStatementsWithComments().indexOf(next), structure);
}

/** Biome's order of named imports: case-insensitive, then upper case first. */
function compareNames(a: string, b: string): number {
  const folded = a.toLowerCase().localeCompare(b.toLowerCase());
  return folded !== 0 ? folded : a < b ? -1 : a > b ? 1 : 0;
}

/** ts-morph, loaded on first use only; CommonJS, so `require` keeps this function synchronous. */
function loadTsMorph(): typeof import('ts-morph') {
  return require('ts-morph') as typeof import('ts-morph');
}

function importLine(entry: (typeof STUB_IMPORTS)[number]): string {
  return `import ${entry.typeOnly ? 'type ' : ''}{ ${entry.name} } from '${entry.from}';`;
}

/** One stub, formatted as Biome formats it (one line when it fits, else broken after `=>`). */
export function stubText(operation: StubOperation): string {
  const id = operation.operationId;
  const comment = `/** ${operation.method.toUpperCase()} ${operation.path}: stub added by \`npm run generate\`; replace it with the handler. */`;
  const head = `export const ${id}: AppHandler<${literal(id)}> = async () =>`;
  const call = `notImplemented(${literal(id)});`;
  const oneLine = `${head} ${call}`;
  const body = oneLine.length <= LINE_WIDTH ? oneLine : `${head}\n  ${call}`;
  return `${comment}\n${body}\n`;
}

/** The handler index: every module spread into one object checked against the handler map. */
export function indexText(modules: readonly string[]): string {
  const identifier = (file: string) =>
    file
      .replace(/\.ts$/, '')
      .replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())
      .replace(/^([0-9])/, '_$1');
  // Sorted by specifier, as Biome's organizeImports wants them.
  const local = [
    ...modules.map((file) => ({
      from: `./${file.replace(/\.ts$/, '.js')}`,
      line: `import * as ${identifier(file)} from './${file.replace(/\.ts$/, '.js')}';`,
    })),
    { from: './types.js', line: "import type { HandlerContext } from './types.js';" },
  ].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const spreads = modules.map((file) => `  ...${identifier(file)},`);
  return [
    INDEX_HEADER,
    "import type { HandlerMap } from '../../contract/route-types.js';",
    "import type { OperationTypes } from '../../generated/routes.js';",
    ...local.map((entry) => entry.line),
    '',
    "/** Every operation's handler; an operation without one is a compile error. */",
    'export const handlers = {',
    ...spreads,
    '} satisfies HandlerMap<OperationTypes, HandlerContext>;',
    '',
  ].join('\n');
}
