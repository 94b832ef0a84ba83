/**
 * `npm run generate`: check that `spec/openapi.yaml` is a well-formed OpenAPI 3.0 document, then
 * write `generated/` (types, client, routes) and add handler stubs to `server/handlers/`.
 *
 * The check is what generation needs, done once: validity against the official OpenAPI 3.0 JSON
 * Schema (tooling/openapi/validate-document.ts), which also follows every `$ref`, and refuses
 * any document, ours or another, that breaks it: other people's tools read what we generate
 * from. The house rules (`redocly.yaml`: Redocly's `struct`, examples, scopes, PHI in URLs,
 * error responses) are `npm run lint:spec`'s, which `npm test`, `npm run spec:check` and `npm run
 * dev` run; a generator that also ran them would double `npm test`'s lint and cost about as much
 * again as the rest of the run (bench/results/generate.md). Another document (`--spec`) also
 * gets Redocly's `struct` findings, printed as warnings.
 *
 * On our spec a run whose inputs are unchanged reuses the text of the last one from a content
 * cache (tooling/generate/cache.ts) and still compares it with the files on disk. A run that
 * builds makes `types.ts` (every version's) in a worker thread (tooling/generate/types-thread.ts)
 * while this thread checks the document and makes the routes, the clients and the stubs, for our
 * spec when a core is free (`PATIENT_CARE_TYPES_THREAD=on|off` decides instead). On our spec,
 * in the thread or not, only the parts of `types.ts` the piece cache lacks are printed
 * (generators/types-pieces.ts, tooling/generate/pieces-cache.ts).
 *
 *   npm run generate                              our spec → generated/ (every older dated
 *                                                 version in generated/versions/) + handler stubs
 *   npm run generate -- --check                   exit 1 listing stale files (nothing written)
 *   npm run generate -- --spec FILE --out DIR     any OpenAPI 3.0 document → DIR (any folder; a
 *                                                 file there that generate did not write is
 *                                                 never overwritten)
 *   npm run generate -- --version DATE            our spec as of an older dated version (derived
 *                                                 by spec/versions/) → generated/versions/DATE/
 *
 * Errors are printed as `file:line:col  #/json/pointer  message`, never as a stack trace.
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { StubReport } from '../generators/handler-stubs.js';
import { parseOrExit, UsageError } from '../tooling/cli/command.js';
import {
  type CachedRun,
  cacheFolder,
  GENERATE_INPUTS,
  inputsKey,
  readRun,
  writeRun,
} from '../tooling/generate/cache.js';
import type { TypesMaker } from '../tooling/generate/tree.js';
import { versionRemakeCommand } from '../tooling/generate/versions.js';
import type { LoadedDocument, Located } from '../tooling/openapi/load.js';

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
    'Checks that spec/openapi.yaml is a well-formed OpenAPI 3.0 document, valid against the official OpenAPI 3.0 schema, then writes generated/ (types, client, routes) and adds handler stubs to server/handlers/. With --spec and --out, generates any OpenAPI 3.0 document into any folder (files there that it did not write are never overwritten). The house lint rules are npm run lint:spec.',
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
      description:
        'Output folder, anywhere (with --spec); refuses to overwrite a file it did not write.',
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
    throw new UsageError(
      '--spec needs --out DIR (the folder to write types.ts, routes.ts and client.ts to)',
    );
  const version = values.version === undefined ? undefined : await olderVersion(values.version);
  if (version !== undefined && !ours) throw new UsageError('--version is for our spec, not --spec');
  const specFile = resolve(values.spec ?? join(ROOT, OUR_SPEC));
  const defaultOut = version === undefined ? 'generated' : `generated/versions/${version}`;
  const outDir = relative(ROOT, resolve(values.out ?? join(ROOT, defaultOut)));
  if (outDir === '') throw new UsageError('--out must be a folder, not the repository itself');
  if (!existsSync(specFile)) throw new UsageError(`--spec: no such file ${specFile}`);
  const remakeCommand = !ours
    ? `npm run generate -- --spec ${values.spec} --out ${values.out}`
    : version !== undefined
      ? versionRemakeCommand(version)
      : 'npm run generate';
  const shown = relative(ROOT, specFile).startsWith('..') ? specFile : relative(ROOT, specFile);

  console.log(`generate: ${shown} → ${outDir}/${values.check ? ' (check only)' : ''}`);
  // Our spec: keyed by the content of everything the output depends on (tooling/generate/cache.ts).
  // Another document may `$ref` files anywhere, so its runs are not cached.
  const key = ours
    ? inputsKey(ROOT, [...GENERATE_INPUTS, HANDLERS], [outDir, remakeCommand, version ?? 'latest'])
    : undefined;
  const cached = key === undefined ? undefined : readRun(ROOT, key);
  let run: Run;
  if (cached) {
    console.log(
      `cache: spec, version modules, handlers and generator sources unchanged since an earlier run; its output (${relative(ROOT, cacheFolder(ROOT))}) is compared with the files on disk · ${seconds()}`,
    );
    run = fromCache(cached);
  } else {
    run = await build({ specFile, shown, ours, version, outDir, remakeCommand });
    if (key !== undefined) writeRun(ROOT, key, toCache(run));
  }
  const { files, generated, report } = run;
  console.log(
    `generate: ${run.operations} operation(s), ${generated} file(s)${cached ? ' (cached)' : ''} · ${seconds()}`,
  );
  const { foreignFiles, staleFiles, writeTree } = await import('../tooling/generate/disk.js');
  const stale = staleFiles(files);

  if (values.check) {
    if (stale.length > 0) {
      fail([
        `check: ${stale.length} file(s) out of date with ${shown}:`,
        ...stale.map((path) => `  ${relative(ROOT, path)}`),
        `Run \`${remakeCommand}\` and commit the result.`,
      ]);
    }
    console.log(`check: ${files.size} file(s) up to date · ${seconds()}`);
    return;
  }
  // --out may be any folder, someone else's project included: never overwrite a file this
  // command did not write (its first line is the generated header).
  const generatedPaths = [...files.keys()].slice(0, generated);
  const foreign = foreignFiles(stale.filter((path) => generatedPaths.includes(path)));
  if (foreign.length > 0) {
    fail([
      `generate: ${foreign.length} file(s) in the way were not written by npm run generate:`,
      ...foreign.map((path) => `  ${path}`),
      'Nothing was written. Choose another --out folder, or move those files away.',
    ]);
  }
  writeTree(files, stale);
  if (report) {
    for (const { operationId, file } of report.added) {
      console.log(`  stub added: ${operationId} in ${relative(ROOT, file)}`);
    }
    for (const { operationId, file } of report.orphans) {
      console.log(
        `  orphan handler: ${operationId} in ${relative(ROOT, file)} has no operation in the spec`,
      );
    }
  }
  if (outDir.startsWith('..')) {
    console.log(
      `note: types.ts stands alone; client.ts imports the client runtime (${join(ROOT, 'client')}) and routes.ts the route types (${join(ROOT, 'contract')}) from this repository by relative path`,
    );
  }
  console.log(
    `done: ${run.operations} operation(s), ${files.size} file(s) (${stale.length} written, ${files.size - stale.length} unchanged)${report ? `, ${report.added.length} stub(s) added, ${report.orphans.length} orphan(s)` : ''} in ${seconds()}`,
  );
}

/** What a run yields: every file that should exist, absolute path → text, and what it found. */
interface Run {
  files: Map<string, string>;
  /** How many of `files` are generated files (the rest are handler modules). */
  generated: number;
  operations: number;
  report: StubReport | null;
}

interface BuildRequest {
  specFile: string;
  /** The spec file as shown to people. */
  shown: string;
  ours: boolean;
  version: string | undefined;
  outDir: string;
  remakeCommand: string;
}

/**
 * The whole pipeline: parse, structural check, validity against the official schema, then the
 * generated files (every older version's too for plain `npm run generate`) and handler stubs.
 * Redocly, the schema validator and the generators are imported here, not at the top: a run
 * answered from the cache needs none of them.
 */
async function build(request: BuildRequest): Promise<Run> {
  // Started first: it loads openapi-typescript and TypeScript while this thread loads Redocly.
  const { startTypesThread, typesThreadWanted } = await import(
    '../tooling/generate/types-thread.js'
  );
  // Not for another document: a second heap holding a large one's types would push GitHub's
  // peak from ~540 MB to ~700 MB (issue 44's earlier target: < 600 MB).
  if (!request.ours) {
    const { typesInThreadOnce } = await import('../tooling/generate/tree.js');
    return buildWith(request, typesInThreadOnce());
  }
  if (!typesThreadWanted()) {
    // In this thread, from the same piece cache as the thread's.
    const { piecedTypesInThreadOnce } = await import('../tooling/generate/tree.js');
    const pieced = piecedTypesInThreadOnce(cacheFolder(ROOT));
    try {
      return await buildWith(request, pieced.types);
    } finally {
      pieced.save();
    }
  }
  // Its pieces of types.ts are cached with the runs (a spec edit reprints only what changed).
  const thread = startTypesThread({ piecesFolder: cacheFolder(ROOT) });
  try {
    return await buildWith(request, thread.types);
  } finally {
    await thread.close();
  }
}

async function buildWith(request: BuildRequest, types: TypesMaker): Promise<Run> {
  const { specFile, shown, ours, version, outDir, remakeCommand } = request;
  const { DocumentError } = await import('../tooling/openapi/errors.js');
  const {
    LoadError,
    lintConfig,
    loadDocument,
    locateError,
    locateParseError,
    locateProblem,
    ParseError,
    readDocument,
  } = await import('../tooling/openapi/load.js');
  let loaded: LoadedDocument;
  try {
    if (ours) {
      // Checked once, below, against the official schema (which also follows every `$ref`);
      // Redocly's `struct` rule is `npm run lint:spec`'s, with the house rules. The latest
      // document goes to the types thread now: if the check refuses it, its types are never
      // asked for.
      loaded = { ...(await readDocument(specFile)), problems: [] };
      if (version === undefined) void types(loaded.bundled);
    } else {
      loaded = await loadDocument(specFile, await lintConfig(null));
    }
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
  if (!ours) {
    // Third-party documents: Redocly's structural findings are reported, not fatal (every
    // corpus document has some, e.g. `nullable` without `type`); the generators handle what
    // they can read. The official schema below is fatal for every document.
    const problems = loaded.problems.map((problem) => locateProblem(problem, ROOT));
    for (const problem of problems.slice(0, 5))
      console.log(format({ ...problem, severity: 'warn' }));
    if (problems.length > 5)
      console.log(`  ... and ${problems.length - 5} more structural finding(s)`);
    console.log(`check: ${problems.length} structural finding(s) · ${seconds()}`);
  }
  const { validateDocument } = await import('../tooling/openapi/validate-document.js');
  const { locateViolations } = await import('../tooling/openapi/validate-file.js');
  const violations = locateViolations(
    await validateDocument(loaded.bundled),
    loaded.root,
    specFile,
    ROOT,
  );
  if (violations.length > 0) {
    fail([
      ...violations.slice(0, 50).map(format),
      ...(violations.length > 50 ? [`  ... and ${violations.length - 50} more`] : []),
      `check: ${shown} is not valid against the official OpenAPI 3.0 schema (${violations.length} error(s)); nothing was generated.`,
    ]);
  }
  console.log(
    ours
      ? `check: OpenAPI ${loaded.bundled.openapi}, valid against the official OpenAPI 3.0 schema (the house rules are npm run lint:spec) · ${seconds()}`
      : `check: valid against the official OpenAPI 3.0 schema · ${seconds()}`,
  );
  if (version !== undefined) {
    const { versions } = await import('../server/versioning/index.js');
    console.log(`version: ${version}, derived from ${versions.latest} by spec/versions/`);
  }
  // Loaded after the check: the generators (openapi-typescript, TypeScript) are the heavy part.
  const { ourTree } = await import('../tooling/generate/our-tree.js');
  try {
    const tree = await ourTree({
      root: ROOT,
      document: loaded.bundled,
      outDir,
      remakeCommand,
      // Handler stubs follow the latest version only: handlers never see an older one.
      handlersDir: ours && version === undefined ? join(ROOT, HANDLERS) : null,
      ...(version === undefined ? {} : { version }),
      olderVersions: ours && version === undefined,
      types,
    });
    return tree;
  } catch (error) {
    if (!(error instanceof DocumentError)) throw error;
    fail([format(locateError(error, loaded.root, specFile, ROOT)), 'Nothing was generated.']);
  }
}

/** A run as the cache keeps it: paths relative to the repository root. */
function toCache(run: Run): CachedRun {
  const inRepo = ({ operationId, file }: { operationId: string; file: string }) => ({
    operationId,
    file: relative(ROOT, file),
  });
  return {
    files: [...run.files].map(([path, text]) => [relative(ROOT, path), text]),
    generated: run.generated,
    operations: run.operations,
    report: run.report && {
      added: run.report.added.map(inRepo),
      orphans: run.report.orphans.map(inRepo),
    },
  };
}

function fromCache(cached: CachedRun): Run {
  const absolute = ({ operationId, file }: { operationId: string; file: string }) => ({
    operationId,
    file: resolve(ROOT, file),
  });
  return {
    files: new Map(cached.files.map(([path, text]) => [resolve(ROOT, path), text])),
    generated: cached.generated,
    operations: cached.operations,
    report: cached.report && {
      added: cached.report.added.map(absolute),
      orphans: cached.report.orphans.map(absolute),
    },
  };
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
