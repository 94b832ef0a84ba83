/**
 * Loading an OpenAPI document from files: parse it (and the files it `$ref`s) with Redocly's
 * resolver, check the version, lint, bundle; and turn Redocly's problems and the model's errors
 * into `file:line:col` locations. The only part of the model that reads files; everything else
 * receives the bundled object. Files come from the disk, or from any `FileSource` (the spec
 * gate reads a base revision out of git), and are bundled the same way either way.
 */
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as RedoclyCore from '@redocly/openapi-core';
import type {
  Config,
  Document,
  NormalizedProblem,
  Source as SourceType,
} from '@redocly/openapi-core';
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import { appendPointer, getAtPointer, parsePointer, toPointer } from '../../contract/pointer.js';
import { assertOpenApi30 } from './document.js';
import { DocumentError } from './errors.js';
import { withVersionLists } from './version-list.js';

/**
 * Redocly's resolver, reference helpers and source positions, imported from their own files.
 * The package's index also loads every rule set, GraphQL's parser, the configuration and the
 * bundler: ~125 ms of CPU on every process, against ~20 ms for these files (Node 24 with its
 * compile cache, measured with `node -e` importing each). Reading, checking and bundling a
 * document whose only external `$ref`s are Markdown descriptions (our spec) needs none of the
 * rest, and that is what `npm run generate` does after every edit; linting, configuration and
 * Redocly's bundler load the index on first use (`core()`). The files are named by path because
 * the package's `exports` lists only its index: an upgrade that moves one fails every test that
 * reads a document, loudly.
 */
const CORE_DIR = dirname(createRequire(import.meta.url).resolve('@redocly/openapi-core'));
const coreFile = async <T>(path: string): Promise<T> =>
  (await import(pathToFileURL(join(CORE_DIR, path)).href)) as T;
const { BaseResolver, Source } = await coreFile<typeof RedoclyCore>('resolve.js');
const { isAbsoluteUrl } = await coreFile<typeof RedoclyCore>('ref-utils.js');
const { getLineColLocation } = await coreFile<typeof RedoclyCore>('format/codeframes.js');
const { isSupportedExtension } = await coreFile<{ isSupportedExtension(file: string): boolean }>(
  'utils/is-supported-extension.js',
);
type BaseResolver = RedoclyCore.BaseResolver;
type Source = SourceType;

let whole: Promise<typeof RedoclyCore> | undefined;
/** The package's index: lint, configuration, Redocly's bundler. */
const core = (): Promise<typeof RedoclyCore> => {
  whole ??= import('@redocly/openapi-core');
  return whole;
};

export interface LoadedDocument {
  bundled: OpenApiDocument;
  /** The root file as Redocly parsed it, to turn pointers into lines. */
  root: Document;
  problems: NormalizedProblem[];
}

/** A problem ready to print: `file:line:col  pointer  message`. */
export interface Located {
  severity: 'error' | 'warn';
  where: string;
  pointer: string;
  message: string;
  ruleId?: string;
}

/**
 * The project's `redocly.yaml` (every house rule: the dev loop, `npm run lint:spec`), or with
 * `null` the structural check generation needs: Redocly's `struct` rule and unresolved `$ref`s,
 * what `npm run generate` runs on any document (real-world documents break style rules by the
 * hundred, and our own spec's style is the lint's job).
 */
export async function lintConfig(projectConfig: string | null): Promise<Config> {
  const { createConfig, loadConfig } = await core();
  if (projectConfig) return loadConfig({ configPath: projectConfig });
  return createConfig({ rules: { struct: 'error', 'no-unresolved-refs': 'error' } });
}

/** A generator error raised while loading, with the parsed root so its line can be found. */
export class LoadError extends Error {
  readonly error: DocumentError;
  readonly root: Document;

  constructor(error: DocumentError, root: Document) {
    super(error.message);
    this.error = error;
    this.root = root;
  }
}

/** Reads a file by POSIX path relative to a source's root; `undefined` when there is none. */
export type ReadText = (path: string) => string | undefined;

/** Where the loader reads a document and the files it `$ref`s: a work tree, a git revision. */
export interface FileSource {
  /** The directory `read`'s paths are relative to (a repository's work tree). */
  root: string;
  read: ReadText;
}

/** Where a node of a bundled document was written: a file and the JSON pointer inside it. */
export interface Origin {
  /** Absolute path (under the source's root), or the URL it was read from. */
  file: string;
  /** `#/Patient/properties/email` */
  pointer: string;
}

/**
 * Redocly's resolver, reading `.json` files with `JSON.parse`: its YAML parser reads JSON too,
 * but several times slower (GitHub's 13 MB document). Source positions for messages come from
 * the source text, parsed again only when a location is asked for.
 *
 * With a `FileSource`, files (but not URLs) are read through it instead of from the disk. It
 * keeps the files it could not read or parse, with a one-line reason, and on request where
 * each object of the other files sat, noted as parsed, before bundling moves it.
 */
class Resolver extends BaseResolver {
  /** File (named for people) → why it could not be read or parsed. */
  readonly failures = new Map<string, string>();
  /** Object of a file other than the root → where it was written; kept when `trackOrigins`. */
  readonly origins = new WeakMap<object, Origin>();

  private readonly source: FileSource | undefined;
  private readonly trackOrigins: boolean;

  // Assigned by hand: `npm run generate` loads this file through Node's type stripping, which
  // refuses parameter properties.
  constructor(config: Config['resolve'] | undefined, source?: FileSource, trackOrigins = false) {
    super(config);
    this.source = source;
    this.trackOrigins = trackOrigins;
  }

  /** `spec/schemas/patient.yaml`: relative to the source's root (or the working directory). */
  name(absoluteRef: string): string {
    if (isAbsoluteUrl(absoluteRef)) return absoluteRef;
    return relative(this.source?.root ?? process.cwd(), absoluteRef)
      .split(sep)
      .join('/');
  }

  override async loadExternalRef(absoluteRef: string): Promise<Source> {
    if (!this.source || isAbsoluteUrl(absoluteRef)) {
      try {
        return await super.loadExternalRef(absoluteRef);
      } catch (error) {
        this.fail(absoluteRef, `cannot be read: ${(error as Error).message}`);
        throw error;
      }
    }
    const text = this.source.read(this.name(absoluteRef));
    if (text === undefined) {
      this.fail(absoluteRef, 'not found');
      throw new Error(`${this.name(absoluteRef)} not found`);
    }
    return new Source(absoluteRef, text.replace(/\r\n/g, '\n'));
  }

  override parseDocument(source: Source, isRoot = false): Document {
    let document: Document | undefined;
    if (/\.json$/i.test(source.absoluteRef)) {
      try {
        document = { source, parsed: JSON.parse(source.body) };
      } catch {
        // Not strict JSON (comments, a YAML body under a .json name): Redocly's parser decides.
      }
    }
    try {
      document ??= super.parseDocument(source, isRoot);
    } catch (error) {
      const kind = /\.json$/i.test(source.absoluteRef) ? 'JSON' : 'YAML';
      // js-yaml says `reason in "<absolute path>" (line:col)`; the name is said once, shorter.
      const reason = (error as Error).message.replace(` in "${source.absoluteRef}"`, '');
      this.fail(source.absoluteRef, `is not valid ${kind}: ${reason}`);
      throw error;
    }
    if (this.trackOrigins && !isRoot) this.noteOrigins(document.parsed, source.absoluteRef);
    return document;
  }

  private fail(absoluteRef: string, reason: string): void {
    const name = this.name(absoluteRef);
    if (!this.failures.has(name)) this.failures.set(name, `${name} ${reason.split('\n')[0]}`);
  }

  private noteOrigins(node: unknown, file: string): void {
    const pending: [unknown, string][] = [[node, '#']];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const [value, pointer] = next;
      if (value === null || typeof value !== 'object' || this.origins.has(value)) continue;
      this.origins.set(value, { file, pointer });
      for (const [key, child] of Object.entries(value)) {
        if (child !== null && typeof child === 'object') {
          pending.push([child, appendPointer(pointer, key)]);
        }
      }
    }
  }
}

/** A parsed, version-checked, bundled document and the root file it came from. */
export interface ReadDocument {
  bundled: OpenApiDocument;
  /** The root file as Redocly parsed it, to turn pointers into lines. */
  root: Document;
}

/** A file as Redocly's resolver parsed it, with the resolver that read it and the files it `$ref`s. */
export interface ParsedFile {
  root: Document;
  resolver: BaseResolver;
}

/**
 * Parses `file` and the files it `$ref`s with the model's resolver: no version check, no lint,
 * no bundle (the dev loop lints and bundles the one parse). Throws the parser's own error, with
 * its line and column, for a file that does not parse.
 */
export async function parseFile(file: string, config?: Config): Promise<ParsedFile> {
  const resolver = new Resolver(config?.resolve);
  return { root: await parseRoot(file, resolver), resolver };
}

async function parseRoot(file: string, resolver: BaseResolver): Promise<Document> {
  const root = await resolver.resolveDocument(null, realpathSync(file), true);
  if (root instanceof Error) throw root;
  if (!('parsed' in root)) throw new Error(`cannot read ${file}`);
  return root;
}

/** A file that does not parse; `cause` is the parser's error (see {@link locateParseError}). */
export class ParseError extends Error {}

/** {@link parseRoot}, its failure a `ParseError` naming the file (generate, the lint). */
async function resolveRoot(file: string, resolver: BaseResolver): Promise<Document> {
  try {
    return await parseRoot(file, resolver);
  } catch (error) {
    throw new ParseError(`Cannot parse ${file}: ${(error as Error).message.split('\n')[0]}`, {
      cause: error,
    });
  }
}

/**
 * Redocly's bundle of `parsed`: every file it `$ref`s pulled in, refs left as refs (so recursive
 * schemas keep their cycles). A schema, parameter, response… of another file becomes a
 * component (`#/components/schemas/<name>`); a Path Item or a Markdown description is inlined.
 * A single-file document is already "bundled"; re-walking 13 MB to prove it costs ~2 s.
 * `problems` are the bundle's own (a `$ref` that does not resolve). With `copy`, the parsed
 * tree is left as it was (the dev loop lints it after). `config` is only read by Redocly's
 * bundler (its default when absent).
 *
 * A document whose only other files are Markdown descriptions (our spec's guides) is bundled by
 * putting each file's text, as the resolver read it, where its `$ref` was: what Redocly's bundler
 * yields for it (`test/openapi/load.test.ts` compares the two), without walking the document
 * with every visitor (~45 ms of `npm run generate` on our spec) or loading the bundler.
 */
export async function bundleFile(
  parsed: ParsedFile,
  config?: Config,
  options: { copy?: boolean } = {},
): Promise<{ bundled: unknown; problems: NormalizedProblem[] }> {
  const tree = parsed.root.parsed;
  const own = options.copy ? structuredClone(tree) : tree;
  const refs = externalRefs(own);
  if (refs.length === 0) {
    await withVersionLists(own);
    return { bundled: own, problems: [] };
  }
  if (refs.every(isDescriptionFile) && (await inlineDescriptions(refs, parsed))) {
    await withVersionLists(own);
    return { bundled: own, problems: [] };
  }
  // Another file that is YAML or JSON, or a description file that cannot be read (Redocly's
  // bundler reports it as a problem, with its place).
  const doc = options.copy
    ? ({ source: parsed.root.source, parsed: own } as Document)
    : parsed.root;
  const { bundle, createConfig } = await core();
  const result = await bundle({
    config: config ?? (await createConfig({})),
    doc,
    dereference: false,
    externalRefResolver: parsed.resolver,
  });
  // The dated versions the document lists come from its version modules (`x-versions`).
  await withVersionLists(result.bundle.parsed);
  return { bundled: result.bundle.parsed, problems: result.problems };
}

/** A `$ref` to another file: the object that holds the Reference Object, and under which key. */
interface ExternalRef {
  holder: Record<string, unknown> | unknown[];
  key: string;
  reference: Record<string, unknown>;
  ref: string;
}

/** Every Reference Object of `node` whose `$ref` points outside the file. */
function externalRefs(node: unknown): ExternalRef[] {
  const found: ExternalRef[] = [];
  const pending: unknown[] = [node];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next === null || typeof next !== 'object') continue;
    const holder = next as Record<string, unknown>;
    for (const key of Object.keys(holder)) {
      const value = holder[key];
      if (value === null || typeof value !== 'object') continue;
      const ref = (value as { $ref?: unknown }).$ref;
      if (typeof ref === 'string' && !ref.startsWith('#')) {
        found.push({ holder, key, reference: value as Record<string, unknown>, ref });
      }
      pending.push(value);
    }
  }
  return found;
}

/** `description: { $ref: ./guides/x.md }`: a whole file that is text, not YAML or JSON. */
function isDescriptionFile({ holder, key, reference, ref }: ExternalRef): boolean {
  return (
    key === 'description' &&
    !Array.isArray(holder) &&
    Object.keys(reference).length === 1 &&
    !ref.includes('#') &&
    !isAbsoluteUrl(ref) &&
    !isSupportedExtension(ref)
  );
}

/**
 * Puts each description file's text where its `$ref` was. False, with some inlined, when a file
 * cannot be read.
 */
async function inlineDescriptions(refs: ExternalRef[], parsed: ParsedFile): Promise<boolean> {
  const base = parsed.root.source.absoluteRef;
  for (const { holder, key, ref } of refs) {
    const read = await parsed.resolver.resolveDocument(base, ref).catch((error: Error) => error);
    if (read instanceof Error || !('parsed' in read) || typeof read.parsed !== 'string') {
      return false;
    }
    (holder as Record<string, unknown>)[key] = read.parsed;
  }
  return true;
}

async function bundleRoot(root: Document, config: Config | undefined, resolver: Resolver) {
  return (await bundleFile({ root, resolver }, config)).bundled;
}

/**
 * Parses, version-checks and bundles `file` (no lint). Throws `LoadError` for a document that
 * is not OpenAPI 3.0.
 */
export async function readDocument(file: string, config?: Config): Promise<ReadDocument> {
  const { resolver: _, ...read } = await readWith(file, config);
  return read;
}

async function readWith(
  file: string,
  config: Config | undefined,
): Promise<ReadDocument & { resolver: Resolver }> {
  const resolver = new Resolver(config?.resolve);
  const root = await resolveRoot(file, resolver);
  try {
    assertOpenApi30(root.parsed);
  } catch (error) {
    if (error instanceof DocumentError) throw new LoadError(error, root);
    throw error;
  }
  const bundled = (await bundleRoot(root, config, resolver)) as OpenApiDocument;
  return { bundled, root, resolver };
}

/** A document read by `readLenient`: bundled, and where its nodes were written. */
export interface LenientDocument {
  /** The bundled document, checked for nothing but being an object. */
  bundled: OpenApiDocument;
  /**
   * Where the node at `pointer` in `bundled` was written, when that is in another file than the
   * root: the deepest object on the way that came from such a file, and the rest of the
   * pointer below it. `undefined` for what the root file holds itself.
   *
   * @example origin('/components/schemas/Patient/properties/email')
   * // { file: '/repo/spec/schemas/patient.yaml', pointer: '#/Patient/properties/email' }
   */
  origin(pointer: string): Origin | undefined;
}

/**
 * Parses and bundles `path` (relative to `source.root`) and every file it `$ref`s, reading
 * through `source`, without judging the content: no version check, no lint. For a revision of
 * the spec that is compared rather than generated from (the spec gate's base), which may have
 * an older or broken shape. Only what cannot be read is refused: throws an `Error` whose message
 * is one line naming the file (`spec/schemas/a.yaml not found`, `… is not valid YAML: …`), a
 * root that is not an object, or split files Redocly cannot bundle because the root names no
 * OpenAPI version.
 */
export async function readLenient(path: string, source: FileSource): Promise<LenientDocument> {
  const resolver = new Resolver(undefined, source, true);
  const file = join(source.root, path);
  const root = await resolver.resolveDocument(null, file, true).catch((error: Error) => error);
  if (root instanceof Error || !('parsed' in root)) {
    throw new Error(resolver.failures.get(path) ?? `${path}: ${(root as Error).message}`);
  }
  const parsed = root.parsed;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`${path} is not an OpenAPI document (not a YAML mapping)`);
  }
  let bundled: unknown;
  try {
    bundled = await bundleRoot(root, undefined, resolver);
  } catch (error) {
    throw new Error(`${path} cannot be bundled: ${(error as Error).message.split('\n')[0]}`);
  }
  const [failure] = resolver.failures.values();
  if (failure !== undefined) throw new Error(failure);
  return {
    bundled: bundled as OpenApiDocument,
    origin: (pointer) => originAt(bundled, pointer, resolver.origins),
  };
}

function originAt(
  document: unknown,
  pointer: string,
  origins: WeakMap<object, Origin>,
): Origin | undefined {
  const tokens = parsePointer(pointer);
  let found: { origin: Origin; depth: number } | undefined;
  let node = document;
  for (let depth = 0; ; depth++) {
    if (node === null || typeof node !== 'object') break;
    const origin = origins.get(node);
    if (origin) found = { origin, depth };
    if (depth === tokens.length) break;
    node = getAtPointer(node, toPointer([tokens[depth] ?? '']));
  }
  if (!found) return undefined;
  const rest = tokens.slice(found.depth);
  return { file: found.origin.file, pointer: appendPointer(found.origin.pointer, ...rest) };
}

/**
 * Parses, version-checks, lints and bundles `file`, all on one parse (the lint reuses the
 * resolver's files). Throws `LoadError` for a wrong version.
 */
export async function loadDocument(file: string, config: Config): Promise<LoadedDocument> {
  const { resolver, ...read } = await readWith(file, config);
  const { lintDocument } = await core();
  const problems = await lintDocument({
    document: read.root,
    config,
    externalRefResolver: resolver,
  });
  return { ...read, problems };
}

/** Redocly's problem → printable location (the first location is where the node is). */
export function locateProblem(problem: NormalizedProblem, cwd: string): Located {
  const location = problem.location[0];
  let where = '';
  if (location) {
    try {
      const { start } = getLineColLocation(location);
      where = `${relativeTo(cwd, location.source.absoluteRef)}:${start.line}:${start.col}`;
    } catch {
      where = relativeTo(cwd, location.source.absoluteRef);
    }
  }
  return {
    severity: problem.severity === 'error' ? 'error' : 'warn',
    where,
    pointer: location?.pointer ?? '#',
    message: problem.message,
    ruleId: problem.ruleId,
  };
}

/**
 * A file that does not parse (what `parseFile` throws: Redocly's YAML error, with the line and
 * column) → printable location: `file:line:col`, pointer `#`, the parser's reason in one line.
 */
export function locateParseError(error: unknown, file: string, cwd: string): Located {
  const detail = error as {
    line?: number;
    col?: number;
    source?: { absoluteRef?: string };
    originalError?: { reason?: string };
    message?: string;
  };
  const where =
    detail.line === undefined
      ? relativeTo(cwd, file)
      : `${relativeTo(cwd, detail.source?.absoluteRef ?? file)}:${detail.line}:${detail.col ?? 1}`;
  const message = detail.originalError?.reason ?? detail.message ?? String(error);
  return { severity: 'error', where, pointer: '#', message: message.split('\n')[0] ?? '' };
}

/** A generator's error → printable location, looked up in the root file. */
export function locateError(
  error: DocumentError,
  root: Document | null,
  file: string,
  cwd: string,
): Located {
  let where = relativeTo(cwd, file);
  if (root) {
    // The pointer may cross into another file of a split spec; then the nearest node that
    // exists in the root file is named, which is where the `$ref` to follow sits.
    let pointer = error.pointer;
    for (;;) {
      try {
        const { start } = getLineColLocation({ source: root.source, pointer, reportOnKey: false });
        if (start.line > 0) {
          where = `${relativeTo(cwd, root.source.absoluteRef)}:${start.line}:${start.col}`;
          break;
        }
      } catch {
        // fall through to the parent pointer
      }
      if (pointer === '#' || !pointer.includes('/')) break;
      pointer = pointer.slice(0, pointer.lastIndexOf('/')) || '#';
    }
  }
  return { severity: 'error', where, pointer: error.pointer, message: error.message };
}

function relativeTo(cwd: string, file: string): string {
  return file.startsWith(`${cwd}/`) ? file.slice(cwd.length + 1) : file;
}

export { DocumentError };
