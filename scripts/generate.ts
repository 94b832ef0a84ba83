/**
 * `npm run generate`: check that `spec/openapi.yaml` is a well-formed OpenAPI 3.0 document, then
 * write `generated/` (types, client, routes) and add handler stubs to `server/handlers/`.
 *
 * The check is what generation needs, the same depth as openapi-typescript's: Redocly's `struct`
 * rule and unresolved `$ref`s. The house rules (`redocly.yaml`: examples, scopes, PHI in URLs,
 * error responses) are `npm run lint:spec`'s, which `npm test`, `npm run spec:check` and
 * `npm run dev` run; a generator that also ran them would double `npm test`'s lint and take
 * 1.9× openapi-typescript's time instead of about 1× (bench/results/generate.md).
 *
 *   npm run generate                              our spec → generated/ + handler stubs
 *   npm run generate -- --check                   exit 1 listing stale files (nothing written)
 *   npm run generate -- --spec FILE --out DIR     any OpenAPI 3.0 document → DIR (inside the repo)
 *   npm run generate -- --version DATE            our spec as of an older dated version (derived
 *                                                 by spec/versions/) → generated/versions/DATE/
 *
 * Errors are printed as `file:line:col  #/json/pointer  message`, never as a stack trace.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { StubReport } from '../generators/handler-stubs.js';
import { parseOrExit, UsageError } from '../tooling/cli/command.js';
import { DocumentError } from '../tooling/openapi/errors.js';
import {
  LoadError,
  type LoadedDocument,
  type Located,
  lintConfig,
  loadDocument,
  locateError,
  locateParseError,
  locateProblem,
  ParseError,
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

const SPEC = {
  name: 'npm run generate --',
  prefix: 'generate',
  summary:
    'Checks that spec/openapi.yaml is a well-formed OpenAPI 3.0 document, then writes generated/ (types, client, routes) and adds handler stubs to server/handlers/. With --spec and --out, generates any OpenAPI 3.0 document into a folder of the repository. The house lint rules are npm run lint:spec.',
  options: {
    check: {
      type: 'boolean',
      default: false,
      description: 'Write nothing; exit 1 listing the files that are out of date.',
    },
    spec: {
      type: 'string',
      value: 'FILE',
      description: 'Another OpenAPI 3.0 document (needs --out).',
    },
    out: {
      type: 'string',
      value: 'DIR',
      description: 'Output folder inside the repository (with --spec).',
    },
    version: {
      type: 'string',
      value: 'DATE',
      description:
        'A supported dated API version of our spec: types and a client pinned to it, in generated/versions/DATE/ (the latest is generated/).',
    },
  },
} as const;

async function main(): Promise<void> {
  const { values } = parseOrExit(SPEC);
  const ours = values.spec === undefined;
  if (ours && values.out !== undefined)
    throw new UsageError('--out needs --spec: generated/ is for our spec');
  if (!ours && values.out === undefined)
    throw new UsageError('--spec needs --out DIR (a folder inside the repository)');
  const version = values.version === undefined ? undefined : await olderVersion(values.version);
  if (version !== undefined && !ours) throw new UsageError('--version is for our spec, not --spec');
  const specFile = resolve(values.spec ?? join(ROOT, OUR_SPEC));
  const outDir = relative(
    ROOT,
    resolve(
      values.out ??
        join(ROOT, version === undefined ? 'generated' : `generated/versions/${version}`),
    ),
  );
  if (outDir.startsWith('..') || outDir === '' || resolve(outDir) === outDir) {
    throw new UsageError(
      `--out must be a folder inside the repository (${ROOT}); got ${values.out}`,
    );
  }
  if (!existsSync(specFile)) throw new UsageError(`--spec: no such file ${specFile}`);
  const remakeCommand = !ours
    ? `npm run generate -- --spec ${values.spec} --out ${values.out}`
    : version !== undefined
      ? `npm run generate -- --version ${version}`
      : 'npm run generate';
  const shown = relative(ROOT, specFile).startsWith('..') ? specFile : relative(ROOT, specFile);

  console.log(`generate: ${shown} → ${outDir}/${values.check ? ' (check only)' : ''}`);
  let loaded: LoadedDocument;
  try {
    loaded = await loadDocument(specFile, await lintConfig(null));
  } catch (error) {
    if (error instanceof LoadError) {
      fail([
        format(locateError(error.error, error.root, specFile, ROOT)),
        'Nothing was generated.',
      ]);
    }
    if (error instanceof ParseError) {
      fail([format(locateParseError(error.cause, specFile, ROOT)), 'Nothing was generated.']);
    }
    throw error;
  }
  const problems = loaded.problems.map((problem) => locateProblem(problem, ROOT));
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (ours) {
    for (const problem of problems) console.log(format(problem));
    if (errors.length > 0) {
      fail([
        `check: ${errors.length} structural error(s) in ${shown}; nothing was generated.`,
        'Fix them (npm run lint:spec shows them too) and run npm run generate again.',
      ]);
    }
    console.log(
      `check: well-formed OpenAPI ${loaded.bundled.openapi} (the house rules are npm run lint:spec) · ${seconds()}`,
    );
  } else {
    // Third-party documents: structural findings are reported, not fatal (every corpus document
    // has some, e.g. `nullable` without `type`); the generators handle what they can read.
    for (const problem of problems.slice(0, 5))
      console.log(format({ ...problem, severity: 'warn' }));
    if (problems.length > 5)
      console.log(`  ... and ${problems.length - 5} more structural finding(s)`);
    console.log(`check: ${problems.length} structural finding(s) · ${seconds()}`);
  }
  const { generate } = await import('../generators/index.js');
  const { reconcileHandlers } = await import('../generators/handler-stubs.js');
  let result: ReturnType<typeof generate> | DocumentError;
  let document: unknown = loaded.bundled;
  if (version !== undefined) {
    const { deriveDocument, versions } = await import('../server/versioning/index.js');
    document = deriveDocument(loaded.bundled, versions, version);
    console.log(`version: ${version}, derived from ${versions.latest} by spec/versions/`);
  }
  try {
    result = generate(document, { outDir, remakeCommand });
  } catch (error) {
    if (!(error instanceof DocumentError)) throw error;
    result = error;
  }
  if (result instanceof DocumentError) {
    fail([format(locateError(result, loaded.root, specFile, ROOT)), 'Nothing was generated.']);
  }
  const files = new Map(result.files);
  console.log(
    `generate: ${result.operations.length} operation(s), ${files.size} file(s) · ${seconds()}`,
  );

  let report: StubReport | null = null;
  // Handler stubs follow the latest version only: handlers never see an older one.
  if (ours && version === undefined) {
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

/** `--version`: a supported date older than the latest (the latest is plain `generate`). */
async function olderVersion(value: string): Promise<string | undefined> {
  const { versions } = await import('../server/versioning/index.js');
  if (value === versions.latest) return undefined;
  if (!versions.supported.includes(value)) {
    throw new UsageError(
      `--version ${value} is not a supported version; supported: ${versions.supported.join(', ')}`,
    );
  }
  return value;
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`generate: ${error.message} (see --help)`);
    process.exitCode = 2;
    return;
  }
  if (!(error instanceof Refused)) {
    console.error(`generate: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exitCode = 1;
});
