/**
 * `types.ts` made from pieces whose printed text is cached by content, byte for byte the text
 * `generateTypes` prints for the whole document. After a typical spec edit almost every part of
 * `types.ts` is unchanged, and an older dated version's document shares almost all of its parts
 * with the latest, so only the parts not seen before go through openapi-typescript.
 *
 * A piece is one member of `paths` (a Path Item Object, OpenAPI 3.0.3 §4.7.9, with the members
 * of `operations` its operations with an `operationId` yield, §4.7.10) or one member of a
 * components section openapi-typescript prints (`schemas`, `responses`, `parameters`,
 * `requestBodies`, `headers`; §4.7.7). Its key hashes its kind and name, its JSON, the JSON of
 * everything its `$ref`s reach (openapi-typescript resolves parameters, `allOf` members and the
 * like through `ctx.resolve`), the document's discriminators and {@link TYPES_TOOLCHAIN}. The
 * missing pieces are printed in one `transformSchema` call on a document holding only them
 * (references still resolve in the whole document) and split back into members; the output is
 * then assembled in openapi-typescript's fixed skeleton (transform/index.cjs and
 * components-object.cjs of openapi-typescript 7).
 *
 * Whenever the shape is unusual (webhooks, `$defs`, `components.pathItems`, a helper type in the
 * footer such as `WithRequired`, a print that does not split as expected, any failure) the whole
 * document is printed as `generateTypes` does and nothing is cached: correctness beats speed.
 * This module is pure; where the cache lives is the caller's (tooling/generate/pieces-cache.ts).
 */
import { createHash } from 'node:crypto';
import type { GlobalContext, OpenAPI3 } from 'openapi-typescript';
import type { OpenApiDocument } from '../contract/openapi-document.js';
import { inlinePathReferences } from '../tooling/openapi/inline-path-refs.js';
import { printTypes, TYPES_TOOLCHAIN, typesContext } from './types.js';

/** Where printed pieces are kept between documents and runs; texts are opaque to the cache. */
export interface PieceCache {
  get(key: string): string | undefined;
  set(key: string, text: string): void;
}

/** Components sections openapi-typescript prints, in its order (`pathItems` makes a fallback). */
const SECTIONS = ['schemas', 'responses', 'parameters', 'requestBodies', 'headers'] as const;
type Section = (typeof SECTIONS)[number];
/** The order openapi-typescript visits a path item's operations in (path-item-object.cjs). */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** Bumped when what a cached text holds changes. */
const FORMAT = 1;

/** One member of `paths` or of a components section. */
interface Piece {
  kind: 'paths' | Section;
  name: string;
  value: unknown;
  /** Members of `operations` it yields (path items only). */
  operations: number;
  key: string;
}

/** A piece's printed text: its member, and the `operations` members it yields (joined). */
interface Printed {
  member: string;
  operations: string;
}

/** The print of a document, cut into openapi-typescript's skeleton. */
interface Split {
  /** The helper types before `paths` (`$Read`, `$Write`, `Readable`, `Writable`). */
  prefix: string;
  paths: string[];
  /** Members of each section; `null` when the document printed no `components` interface. */
  components: Map<string, string[]> | null;
  operations: string[];
}

/** Thrown where the shape is not the usual one; the whole document is printed instead. */
class Unusual extends Error {}

/**
 * `types.ts`'s text for a document the caller gives away (as `generateTypesConsuming`), reusing
 * the pieces `cache` holds and adding the ones it lacks.
 *
 * @example generateTypesPieced(structuredClone(doc), new Map()) === generateTypes(doc) // true
 */
export function generateTypesPieced(copy: OpenApiDocument, cache: PieceCache): string {
  inlinePathReferences(copy);
  const schema = copy as OpenAPI3;
  const ctx = typesContext(schema);
  try {
    return assemble(schema, ctx, cache);
  } catch {
    // An unusual shape, or a document openapi-typescript refuses: the whole print decides.
    return printTypes(schema, ctx);
  }
}

/** The pieced text; throws when it cannot be sure to match the whole print. */
function assemble(schema: OpenAPI3, ctx: GlobalContext, cache: PieceCache): string {
  const pieces = piecesOf(schema, ctx);
  const texts = new Map<Piece, Printed>();
  const missing: Piece[] = [];
  for (const piece of pieces) {
    const cached = cache.get(piece.key);
    const printed = cached === undefined ? undefined : parsePrinted(cached);
    if (printed) texts.set(piece, printed);
    else missing.push(piece);
  }
  const split = printMissing(schema, ctx, missing);
  for (const [piece, printed] of split.made) {
    texts.set(piece, printed);
    cache.set(piece.key, JSON.stringify([printed.member, printed.operations]));
  }
  return skeleton(schema, pieces, texts, split.prefix);
}

/** Every piece of `schema` with its key; throws on a shape the skeleton does not cover. */
function piecesOf(schema: OpenAPI3, ctx: GlobalContext): Piece[] {
  const root = schema as unknown as Record<string, unknown>;
  if ('webhooks' in root || '$defs' in root) throw new Unusual('webhooks or $defs');
  const components = objectOrNothing(root.components, 'components');
  if (components && 'pathItems' in components) throw new Unusual('components.pathItems');
  const keys = new PieceKeys(ctx);
  const pieces: Piece[] = [];
  for (const [url, item] of Object.entries(objectOrNothing(root.paths, 'paths') ?? {})) {
    if (!item || typeof item !== 'object') continue; // openapi-typescript skips these too
    pieces.push({ kind: 'paths', name: url, value: item, operations: operationsOf(item), key: '' });
  }
  for (const section of SECTIONS) {
    for (const [name, item] of Object.entries(
      objectOrNothing(components?.[section], section) ?? {},
    ))
      pieces.push({ kind: section, name, value: item, operations: 0, key: '' });
  }
  for (const piece of pieces) piece.key = keys.of(piece);
  return pieces;
}

/** `value` as a record, `undefined` when absent; throws for anything else. */
function objectOrNothing(value: unknown, what: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new Unusual(`${what} is no object`);
  return value as Record<string, unknown>;
}

/** How many `operations` members a path item yields (path-item-object.cjs's rule). */
function operationsOf(item: object): number {
  if ('$ref' in item) return 0;
  const record = item as Record<string, unknown>;
  let count = 0;
  for (const method of METHODS) {
    const operation = record[method];
    if (!operation) continue;
    if (typeof operation !== 'object') throw new Unusual(`${method} is no object`);
    if (!('$ref' in operation) && (operation as { operationId?: unknown }).operationId) count += 1;
  }
  return count;
}

/**
 * Piece keys for one document: each `$ref`'s target (as `ctx.resolve` finds it) hashed once,
 * with the references inside it, so a piece's key is its JSON plus its closure's hashes.
 */
class PieceKeys {
  private readonly targets = new Map<string, { hash: string; refs: string[] }>();
  private readonly ctx: GlobalContext;
  private readonly base: string;

  constructor(ctx: GlobalContext) {
    this.ctx = ctx;
    this.base = sha1(
      `types pieces ${FORMAT}\0${TYPES_TOOLCHAIN}\0${JSON.stringify(ctx.discriminators)}`,
    );
  }

  /** The key of `piece`. */
  of(piece: Piece): string {
    const json = JSON.stringify(piece.value);
    const reached = new Set<string>();
    const queue = referencesIn(piece.value);
    for (let ref = queue.pop(); ref !== undefined; ref = queue.pop()) {
      if (reached.has(ref)) continue;
      reached.add(ref);
      queue.push(...this.target(ref).refs);
    }
    const closure = [...reached].sort().map((ref) => `${ref}\0${this.target(ref).hash}`);
    return sha1([this.base, piece.kind, piece.name, json, ...closure].join('\0'));
  }

  private target(ref: string): { hash: string; refs: string[] } {
    let known = this.targets.get(ref);
    if (!known) {
      const target = this.ctx.resolve(ref);
      known = { hash: sha1(JSON.stringify(target) ?? 'unresolved'), refs: referencesIn(target) };
      this.targets.set(ref, known);
    }
    return known;
  }
}

/** Every `$ref` string under `value` (examples included: one too many only costs a reuse). */
function referencesIn(value: unknown, found: string[] = []): string[] {
  if (value === null || typeof value !== 'object') return found;
  if (Array.isArray(value)) {
    for (const item of value) referencesIn(item, found);
    return found;
  }
  for (const [key, item] of Object.entries(value)) {
    if (key === '$ref' && typeof item === 'string') found.push(item);
    else referencesIn(item, found);
  }
  return found;
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** A cached text read back; `undefined` when it is not one this module wrote. */
function parsePrinted(text: string): Printed | undefined {
  try {
    const [member, operations] = JSON.parse(text) as unknown[];
    if (typeof member === 'string' && typeof operations === 'string') return { member, operations };
  } catch {
    // Not ours: printed again.
  }
  return undefined;
}

/**
 * Prints a document holding only `missing` (resolving in `schema`, with its discriminators) and
 * gives each piece its text, and the helper prefix. Throws when the footer holds more than the
 * `operations` interface or the print does not split into the expected members.
 */
function printMissing(
  schema: OpenAPI3,
  ctx: GlobalContext,
  missing: Piece[],
): { prefix: string; made: Map<Piece, Printed> } {
  const text = printTypes(partialDocument(schema, missing), ctx);
  for (const node of ctx.injectFooter) {
    if ((node as { name?: { text?: string } }).name?.text !== 'operations')
      throw new Unusual('a helper type in the footer');
  }
  const split = splitPrint(text);
  const made = new Map<Piece, Printed>();
  const operations = [...split.operations];
  const paths = missing.filter((piece) => piece.kind === 'paths');
  if (split.paths.length !== paths.length) throw new Unusual('paths do not match');
  for (const [index, piece] of paths.entries()) {
    const own = operations.splice(0, piece.operations);
    if (own.length !== piece.operations) throw new Unusual('fewer operations than expected');
    made.set(piece, { member: split.paths[index] as string, operations: own.join('') });
  }
  if (operations.length > 0) throw new Unusual('more operations than expected');
  for (const section of SECTIONS) {
    const pieces = missing.filter((piece) => piece.kind === section);
    const members = split.components?.get(section) ?? [];
    if (members.length !== pieces.length) throw new Unusual(`${section} do not match`);
    for (const [index, piece] of pieces.entries())
      made.set(piece, { member: members[index] as string, operations: '' });
  }
  return { prefix: split.prefix, made };
}

/** A document with `schema`'s version and only the `missing` pieces, in their order. */
function partialDocument(schema: OpenAPI3, missing: Piece[]): OpenAPI3 {
  const members = (kind: Piece['kind']) =>
    Object.fromEntries(
      missing.filter((piece) => piece.kind === kind).map((piece) => [piece.name, piece.value]),
    );
  const partial: Record<string, unknown> = { openapi: schema.openapi, paths: members('paths') };
  if (missing.some((piece) => piece.kind !== 'paths'))
    partial.components = Object.fromEntries(SECTIONS.map((section) => [section, members(section)]));
  return partial as unknown as OpenAPI3;
}

/**
 * Cuts a print into its skeleton. Members of an interface body end at a line indented 4 and
 * ending in `;`, those of a components section at one indented 8; a JSDoc comment belongs to the
 * member after it.
 */
function splitPrint(text: string): Split {
  const lines = text.split(/(?<=\n)/);
  let at = lines.findIndex((line) => /^export (interface paths \{|type paths = )/.test(line));
  if (at < 0) throw new Unusual('no paths');
  const prefix = lines.slice(0, at).join('');
  const paths = block(lines, at, 'paths');
  at = paths.next;
  expectLine(lines, at++, 'export type webhooks = Record<string, never>;\n');
  const components = block(lines, at, 'components');
  at = components.next;
  expectLine(lines, at++, 'export type $defs = Record<string, never>;\n');
  const operations = block(lines, at, 'operations');
  if (operations.next !== lines.length) throw new Unusual('more after operations');
  return {
    prefix,
    paths: members(paths.body, /^ {4}\S.*;\n$/),
    components: components.body === null ? null : sections(components.body),
    operations: members(operations.body, /^ {4}\S.*;\n$/),
  };
}

/** `export interface NAME {` … `}` (its body lines) or `export type NAME = Record<…>;` (`null`). */
function block(lines: string[], at: number, name: string): { body: string[] | null; next: number } {
  if (lines[at] === `export type ${name} = Record<string, never>;\n`)
    return { body: null, next: at + 1 };
  expectLine(lines, at, `export interface ${name} {\n`);
  const end = lines.indexOf('}\n', at + 1);
  if (end < 0) throw new Unusual(`${name} does not end`);
  return { body: lines.slice(at + 1, end), next: end + 1 };
}

function expectLine(lines: string[], at: number, line: string): void {
  if (lines[at] !== line) throw new Unusual(`expected ${line.trim()}`);
}

/** Lines cut after each line `end` matches; none may be left over. */
function members(body: string[] | null, end: RegExp): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of body ?? []) {
    current += line;
    if (end.test(line)) {
      out.push(current);
      current = '';
    }
  }
  if (current !== '') throw new Unusual('a member does not end');
  return out;
}

/** The members of each of the six sections of a `components` interface body. */
function sections(body: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let at = 0;
  for (const section of [...SECTIONS, 'pathItems']) {
    if (body[at] === `    ${section}: never;\n`) {
      out.set(section, []);
      at += 1;
      continue;
    }
    if (body[at] !== `    ${section}: {\n`) throw new Unusual(`no ${section}`);
    const end = body.indexOf('    };\n', at + 1);
    if (end < 0) throw new Unusual(`${section} does not end`);
    out.set(section, members(body.slice(at + 1, end), /^ {8}\S.*;\n$/));
    at = end + 1;
  }
  if (at !== body.length) throw new Unusual('more in components');
  return out;
}

/** The whole text: the prefix, then `schema`'s pieces in openapi-typescript's skeleton. */
function skeleton(
  schema: OpenAPI3,
  pieces: Piece[],
  texts: Map<Piece, Printed>,
  prefix: string,
): string {
  const text = (piece: Piece): Printed => {
    const printed = texts.get(piece);
    if (!printed) throw new Unusual(`no text for ${piece.kind} ${piece.name}`);
    return printed;
  };
  const paths = pieces.filter((piece) => piece.kind === 'paths').map(text);
  const out = [prefix, interfaceOf('paths', paths.map((printed) => printed.member).join(''))];
  out.push('export type webhooks = Record<string, never>;\n');
  if (schema.components) {
    out.push('export interface components {\n');
    for (const section of SECTIONS) {
      const members = pieces
        .filter((piece) => piece.kind === section)
        .map((piece) => text(piece).member);
      out.push(
        members.length
          ? `    ${section}: {\n${members.join('')}    };\n`
          : `    ${section}: never;\n`,
      );
    }
    out.push('    pathItems: never;\n}\n');
  } else {
    out.push('export type components = Record<string, never>;\n');
  }
  out.push('export type $defs = Record<string, never>;\n');
  out.push(interfaceOf('operations', paths.map((printed) => printed.operations).join('')));
  return out.join('');
}

function interfaceOf(name: string, body: string): string {
  return body
    ? `export interface ${name} {\n${body}}\n`
    : `export type ${name} = Record<string, never>;\n`;
}
