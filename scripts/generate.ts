/**
 * `npm run generate`: lint `spec/openapi.yaml`, then write `generated/` (types, client, routes)
 * and add handler stubs to `server/handlers/`.
 *
 *   npm run generate                              our spec → generated/ + handler stubs
 *   npm run generate -- --check                   exit 1 listing stale files (nothing written)
 *   npm run generate -- --spec FILE --out DIR     any OpenAPI 3.0 document → DIR (inside the repo)
 *
 * Errors are printed as `file:line:col  #/json/pointer  message`, never as a stack trace.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { StubReport } from '../generators/handler-stubs.js';
import { DocumentError } from '../tooling/openapi/errors.js';
import {
  LoadError,
  type Located,
  lintConfig,
  loadDocument,
  locateError,
  locateProblem,
} from '../tooling/openapi/load.js';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const OUR_SPEC = 'spec/openapi.yaml';
const HANDLERS = 'server/handlers';
const started = performance.now();

class Refused extends Error {}

function fail(lines: string[]): never {
  for (const line of lines) console.error(line);
  throw new Refused();
}

function format(item: Located): string {
  const rule = item.ruleId ? ` (${item.ruleId})` : '';
  return `  ${item.severity === 'error' ? 'error' : 'warning'}  ${item.where || '?'}  ${item.pointer}  ${item.message}${rule}`;
}

function seconds(): string {
  return `${((performance.now() - started) / 1000).toFixed(2)} s`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      check: { type: 'boolean', default: false },
      spec: { type: 'string' },
      out: { type: 'string' },
    },
    strict: true,
  });
  const ours = values.spec === undefined;
  if (ours && values.out !== undefined) fail(['--out needs --spec: generated/ is for our spec.']);
  if (!ours && values.out === undefined)
    fail(['--spec needs --out DIR (a folder inside the repository).']);
  const specFile = resolve(values.spec ?? join(ROOT, OUR_SPEC));
  const outDir = relative(ROOT, resolve(values.out ?? join(ROOT, 'generated')));
  if (outDir.startsWith('..') || outDir === '' || resolve(outDir) === outDir) {
    fail([`--out must be a folder inside the repository (${ROOT}); got ${values.out}.`]);
  }
  if (!existsSync(specFile)) fail([`No such file: ${specFile}`]);
  const remakeCommand = ours
    ? 'npm run generate'
    : `npm run generate -- --spec ${values.spec} --out ${values.out}`;
  const shown = relative(ROOT, specFile).startsWith('..') ? specFile : relative(ROOT, specFile);

  console.log(`generate: ${shown} → ${outDir}/${values.check ? ' (check only)' : ''}`);
  const config = await lintConfig(ours ? join(ROOT, 'redocly.yaml') : null);
  let loaded: Awaited<ReturnType<typeof loadDocument>>;
  try {
    loaded = await loadDocument(specFile, config);
  } catch (error) {
    if (error instanceof LoadError) {
      fail([
        format(locateError(error.error, error.root, specFile, ROOT)),
        'Nothing was generated.',
      ]);
    }
    throw error;
  }
  const problems = loaded.problems.map((problem) => locateProblem(problem, ROOT));
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (ours) {
    for (const problem of problems) console.log(format(problem));
    if (errors.length > 0) {
      fail([
        `lint: ${errors.length} error(s) in ${shown}; nothing was generated.`,
        'Fix them (npm run lint:spec shows the same findings) and run npm run generate again.',
      ]);
    }
    console.log(`lint: clean with redocly.yaml (${problems.length} warning(s)) · ${seconds()}`);
  } else {
    // Third-party documents: structural findings are reported, not fatal (every corpus document
    // has some, e.g. `nullable` without `type`); the generators handle what they can read.
    for (const problem of problems.slice(0, 5))
      console.log(format({ ...problem, severity: 'warn' }));
    if (problems.length > 5)
      console.log(`  ... and ${problems.length - 5} more structural finding(s)`);
    console.log(`lint: structural check, ${problems.length} finding(s) · ${seconds()}`);
  }

  // Loaded after the lint: the generators bring in TypeScript's compiler, and with that heap
  // resident every garbage collection during the lint costs more (measured: lint 1.4 s → 2.7 s).
  const { generate } = await import('../generators/index.js');
  const { reconcileHandlers } = await import('../generators/handler-stubs.js');
  let result: ReturnType<typeof generate>;
  try {
    result = generate(loaded.bundled, { outDir, remakeCommand });
  } catch (error) {
    if (error instanceof DocumentError) {
      fail([format(locateError(error, loaded.root, specFile, ROOT)), 'Nothing was generated.']);
    }
    throw error;
  }
  const files = new Map(result.files);
  console.log(
    `generate: ${result.operations.length} operation(s), ${files.size} file(s) · ${seconds()}`,
  );

  let report: StubReport | null = null;
  if (ours) {
    const existing = new Map<string, string>();
    const folder = join(ROOT, HANDLERS);
    if (existsSync(folder)) {
      for (const name of readdirSync(folder)) {
        if (name.endsWith('.ts')) existing.set(name, readFileSync(join(folder, name), 'utf8'));
      }
    }
    const stubs = reconcileHandlers(result.operations, existing);
    for (const [name, text] of stubs.files) files.set(`${HANDLERS}/${name}`, text);
    report = stubs.report;
  }

  const stale = [...files]
    .filter(([path, text]) => {
      const absolute = join(ROOT, path);
      return !existsSync(absolute) || readFileSync(absolute, 'utf8') !== text;
    })
    .map(([path]) => path);

  if (values.check) {
    if (stale.length > 0) {
      fail([
        `check: ${stale.length} file(s) out of date with ${shown}:`,
        ...stale.map((path) => `  ${path}`),
        `Run \`${remakeCommand}\` and commit the result.`,
      ]);
    }
    console.log(`check: ${files.size} file(s) up to date · ${seconds()}`);
    return;
  }
  for (const path of stale) {
    const absolute = join(ROOT, path);
    mkdirSync(dirname(absolute), { recursive: true });
    writeFileSync(absolute, files.get(path)!);
  }
  if (report) {
    for (const { operationId, file } of report.added) {
      console.log(`  stub added: ${operationId} in ${HANDLERS}/${file}`);
    }
    for (const { operationId, file } of report.orphans) {
      console.log(
        `  orphan handler: ${operationId} in ${HANDLERS}/${file} has no operation in the spec`,
      );
    }
  }
  console.log(
    `done: ${result.operations.length} operation(s), ${files.size} file(s) (${stale.length} written, ${files.size - stale.length} unchanged)${report ? `, ${report.added.length} stub(s) added, ${report.orphans.length} orphan(s)` : ''} in ${seconds()}`,
  );
}

main().catch((error: unknown) => {
  if (!(error instanceof Refused)) {
    console.error(`generate: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exitCode = 1;
});
