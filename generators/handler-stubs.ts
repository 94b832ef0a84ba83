/**
 * Handler stubs: one per Operation Object (OpenAPI 3.0.3 §4.7.10) that has no handler yet, in
 * `server/handlers/<first-tag-kebab>.ts` (Operation `tags`, §4.7.10), plus the handler index.
 *
 * Pure: existing file texts in, new texts and a report out. ts-morph parses the files people
 * edit, to find what they export; stubs are appended as one block per file and imports added
 * once, so hand-written lines are never touched and the cost stays linear in operations (ts-morph
 * fed one node at a time is quadratic: each edit re-walks the file).
 */
import { Project, type SourceFile, SyntaxKind } from 'ts-morph';
import { kebabCase, literal } from './names.js';

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

/**
 * Adds a stub for every operation without a handler and rebuilds `index.ts`.
 *
 * @example reconcileHandlers(ops, new Map([['patients.ts', text]])).report.added
 */
export function reconcileHandlers(
  operations: readonly StubOperation[],
  existing: ReadonlyMap<string, string>,
): StubResult {
  const project = new Project({ useInMemoryFileSystem: true, skipLoadingLibFiles: true });
  const operationIds = new Set(operations.map((operation) => operation.operationId));
  const modules = new Map<string, SourceFile>();
  const exported = new Map<string, Set<string>>();
  const report: StubReport = { added: [], orphans: [] };

  for (const name of [...existing.keys()].sort()) {
    if (SUPPORT_FILES.has(name) || !name.endsWith('.ts')) continue;
    const file = project.createSourceFile(`/handlers/${name}`, existing.get(name)!);
    modules.set(name, file);
    const { names, annotated } = exportsOf(file);
    exported.set(name, names);
    for (const [exportName, operationId] of annotated) {
      if (!operationIds.has(operationId)) report.orphans.push({ operationId, file: name });
      else if (exportName !== operationId)
        report.orphans.push({ operationId: exportName, file: name });
    }
  }
  const implemented = new Set([...exported.values()].flatMap((names) => [...names]));

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
    const source = modules.get(name);
    if (!source) {
      files.set(name, `${stubImports().join('\n')}\n\n${stubs}`);
      exported.set(name, new Set(list.map((operation) => operation.operationId)));
      continue;
    }
    files.set(name, appendStubs(source, stubs));
    for (const operation of list) exported.get(name)!.add(operation.operationId);
  }

  const handlerModules = [...exported]
    .filter(([, names]) => [...names].some((name) => operationIds.has(name)))
    .map(([name]) => name)
    .sort();
  const index = indexText(handlerModules);
  if (existing.get('index.ts') !== index) files.set('index.ts', index);
  report.orphans.sort((a, b) => a.operationId.localeCompare(b.operationId));
  return { files, report };
}

/** Exported value names, and which of them are annotated `AppHandler<'operationId'>`. */
function exportsOf(file: SourceFile): { names: Set<string>; annotated: Map<string, string> } {
  const names = new Set<string>();
  const annotated = new Map<string, string>();
  for (const statement of file.getVariableStatements()) {
    if (!statement.isExported()) continue;
    for (const declaration of statement.getDeclarations()) {
      names.add(declaration.getName());
      const typeText = declaration.getTypeNode()?.getText() ?? satisfiedType(declaration);
      const match = typeText ? HANDLER_TYPE.exec(typeText) : null;
      if (match) annotated.set(declaration.getName(), match[1]!);
    }
  }
  for (const fn of file.getFunctions()) {
    const name = fn.getName();
    if (fn.isExported() && name) names.add(name);
  }
  for (const declaration of file.getExportDeclarations()) {
    if (declaration.getModuleSpecifier()) continue;
    for (const specifier of declaration.getNamedExports()) {
      names.add(specifier.getAliasNode()?.getText() ?? specifier.getName());
    }
  }
  return { names, annotated };
}

/** `export const x = (async () => ...) satisfies AppHandler<'x'>` counts as annotated too. */
function satisfiedType(declaration: { getInitializer(): unknown }): string | undefined {
  const initializer = declaration.getInitializer() as
    | { isKind(kind: SyntaxKind): boolean; getTypeNode?(): { getText(): string } | undefined }
    | undefined;
  if (!initializer?.isKind(SyntaxKind.SatisfiesExpression)) return undefined;
  return initializer.getTypeNode?.()?.getText();
}

/** Adds the imports stubs need (when absent) and appends the stubs, in two edits. */
function appendStubs(source: SourceFile, stubs: string): string {
  const imported = new Set(
    source
      .getImportDeclarations()
      .flatMap((declaration) => declaration.getNamedImports().map((named) => named.getName())),
  );
  const wanted = stubImports().filter((line) => {
    const name = /\{ (\w+) \}/.exec(line)![1]!;
    return !imported.has(name);
  });
  const text = source.getFullText();
  const separator = text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  let result = `${text}${separator}${stubs}`;
  if (wanted.length > 0) {
    const imports = source.getImportDeclarations();
    const at = imports.length > 0 ? imports[imports.length - 1]!.getEnd() : 0;
    const insert = imports.length > 0 ? `\n${wanted.join('\n')}` : `${wanted.join('\n')}\n\n`;
    result = result.slice(0, at) + insert + result.slice(at);
  }
  return result;
}

function stubImports(): string[] {
  return [
    "import { notImplemented } from './not-implemented.js';",
    "import type { AppHandler } from './types.js';",
  ];
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
    "import type { OperationTypes } from '../../generated/routes.js';",
    "import type { HandlerMap } from '../http/route-types.js';",
    ...local.map((entry) => entry.line),
    '',
    "/** Every operation's handler; an operation without one is a compile error. */",
    'export const handlers = {',
    ...spreads,
    '} satisfies HandlerMap<OperationTypes, HandlerContext>;',
    '',
  ].join('\n');
}
