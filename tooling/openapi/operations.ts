/**
 * The one walk over a document's operations, which the generators, the server's route table,
 * the spec gate and the fuzzer read: one entry per Operation Object (OpenAPI 3.0.3 §4.7.10)
 * found under the Paths Object (§4.7.8), with path-level and operation-level parameters merged
 * (§4.7.9 "parameters": an operation's parameter overrides the path's one with the same `name`
 * and `in`), the request body and responses resolved through `$ref`s, and the project's
 * extensions (`x-scopes`, `x-key-kinds`) read and checked.
 *
 * Underneath, `pathItemOperations` is the one loop over a Path Item's HTTP methods. It judges
 * nothing, so the strict `listOperations` and the tolerant breaking-change engine (which must
 * compare a base revision of any shape, and pairs two revisions with `pairOperations`) share it.
 */
import { isKeyKind, KEY_KINDS, type KeyKind } from '../../contract/key-kinds.js';
import { appendPointer, escapeToken, toPointer } from '../../contract/pointer.js';
import { resolveRef } from './document.js';
import { DocumentError } from './errors.js';
import { listMedia, type MediaModel, pickMedia } from './media.js';
import { derivedOperationId } from './names.js';
import { type PaginationModel, readPagination } from './pagination.js';

export const HTTP_METHODS = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
] as const;
export type LowerMethod = (typeof HTTP_METHODS)[number];

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** A Parameter Object (§4.7.12), resolved. */
export interface ParameterModel {
  name: string;
  in: ParameterLocation;
  required: boolean;
  /** The Schema Object, or `undefined` when the parameter uses `content` instead. */
  schema: unknown;
  style: string;
  explode: boolean;
  /** The resolved Parameter Object as the document writes it. */
  node: Record<string, unknown>;
  pointer: string;
}

/** A Response Object (§4.7.17) under one status key. */
export interface ResponseModel {
  /** The status key as the spec writes it: `'200'`, `'4XX'`, `'default'`. */
  status: string;
  /** The media type whose schema the generators use (JSON preferred); `null` for no body. */
  media: MediaModel | null;
  /** Every media type of `content`, in document order. */
  content: MediaModel[];
  /** The resolved Response Object. */
  node: Record<string, unknown>;
  pointer: string;
}

/** A Request Body Object (§4.7.13), resolved. */
export interface RequestBodyModel {
  required: boolean;
  /** The media type whose schema the generators use (JSON preferred). */
  media: MediaModel;
  /** Every media type of `content`, in document order. */
  content: MediaModel[];
  node: Record<string, unknown>;
  pointer: string;
}

export interface OperationModel {
  operationId: string;
  /** False when the spec gave no `operationId` and one was made from method and path. */
  namedInSpec: boolean;
  method: LowerMethod;
  path: string;
  tags: string[];
  summary: string;
  description: string;
  deprecated: boolean;
  parameters: ParameterModel[];
  requestBody: RequestBodyModel | null;
  responses: ResponseModel[];
  /** `x-scopes`: scopes that allow the call; `[]` when absent. */
  scopes: string[];
  /** `x-key-kinds`: key kinds that may call it; `null` when absent. */
  keyKinds: KeyKind[] | null;
  /** `security: []`: callable without an API key (health probes). */
  public: boolean;
  /** A list operation (a list envelope answers `200`) and its cursor; `null` when not a list. */
  pagination: PaginationModel | null;
  /** The Operation Object as the document writes it (its other extensions included). */
  node: Record<string, unknown>;
  pointer: string;
}

/**
 * What the walk reads of a document: its `paths`, with `$ref`s looked up in the whole of it. An
 * `OpenApiDocument` is one; so is a partial document a generator test builds.
 */
export interface OperationSource {
  readonly paths?: { readonly [path: string]: unknown };
  readonly [key: string]: unknown;
}

const DEFAULT_STYLE: Record<ParameterLocation, string> = {
  path: 'simple',
  query: 'form',
  header: 'simple',
  cookie: 'form',
};

/**
 * Walks `document.paths` in document order and returns its operations, with ids unique.
 *
 * @example listOperations(doc).map((op) => op.operationId) // ['listPatients', 'createPatient', ...]
 */
export function listOperations(document: OperationSource): OperationModel[] {
  const operations: OperationModel[] = [];
  const ids = new Set<string>();
  for (const [path, rawItem] of Object.entries(document.paths ?? {})) {
    const itemPointer = toPointer(['paths', path]);
    if (rawItem === null || typeof rawItem !== 'object' || Array.isArray(rawItem)) {
      throw new DocumentError(itemPointer, 'A Path Item must be an object.');
    }
    const { node: item } = resolveRef(document, rawItem, itemPointer);
    const shared = readParameters(
      document,
      item.parameters,
      toPointer(['paths', path, 'parameters']),
    );
    for (const { method, node: raw, pointer } of pathItemOperations(item, itemPointer)) {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
        throw new DocumentError(pointer, 'An Operation must be an object.');
      }
      const op = raw as Record<string, unknown>;
      const named = typeof op.operationId === 'string' && op.operationId !== '';
      let operationId = named ? (op.operationId as string) : derivedOperationId(method, path);
      if (ids.has(operationId)) {
        if (named) {
          throw new DocumentError(
            `${pointer}/operationId`,
            `operationId "${operationId}" is used by more than one operation.`,
          );
        }
        let n = 2;
        while (ids.has(`${operationId}${n}`)) n += 1;
        operationId = `${operationId}${n}`;
      }
      ids.add(operationId);
      const own = readParameters(document, op.parameters, `${pointer}/parameters`);
      const parameters = mergeParameters(shared, own);
      const requestBody = readRequestBody(document, op.requestBody, `${pointer}/requestBody`);
      const responses = readResponses(document, op.responses, `${pointer}/responses`);
      operations.push({
        operationId,
        namedInSpec: named,
        method,
        path,
        tags: Array.isArray(op.tags) ? op.tags.map(String) : [],
        summary: typeof op.summary === 'string' ? op.summary : '',
        description: typeof op.description === 'string' ? op.description : '',
        deprecated: op.deprecated === true,
        parameters,
        requestBody,
        responses,
        scopes: readStringList(op['x-scopes'], `${pointer}/x-scopes`) ?? [],
        keyKinds: readKeyKinds(op['x-key-kinds'], `${pointer}/x-key-kinds`),
        public: Array.isArray(op.security) && op.security.length === 0,
        pagination: readPagination(document, {
          queryNames: parameters.filter((p) => p.in === 'query').map((p) => p.name),
          requestContent: requestBody?.content ?? [],
          responses,
        }),
        node: op,
        pointer,
      });
    }
  }
  return operations;
}

/** One HTTP method key of a Path Item, as the document writes it. */
export interface OperationNode {
  method: LowerMethod;
  /** What the document holds under the method: an Operation Object when it is well formed. */
  node: unknown;
  /** `<path item pointer>/<method>`. */
  pointer: string;
}

/**
 * The one loop over a Path Item's HTTP methods (§4.7.9): every method key present, in
 * `HTTP_METHODS` order, whatever its value. Tolerant: a Path Item that is not an object has no
 * operations. Judging a value is the caller's business: `listOperations` refuses one that is not
 * an object, the breaking-change engine skips it (a base revision is compared, never refused).
 * `item` must already be resolved; `pointer` is where the caller says it sits.
 *
 * @example pathItemOperations({ get: {}, post: null }, '#/paths/~1a') // get at #/paths/~1a/get, post (null)
 */
export function pathItemOperations(item: unknown, pointer: string): OperationNode[] {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return [];
  const record = item as Record<string, unknown>;
  const found: OperationNode[] = [];
  for (const method of HTTP_METHODS) {
    if (!Object.hasOwn(record, method) || record[method] === undefined) continue;
    found.push({ method, node: record[method], pointer: appendPointer(pointer, method) });
  }
  return found;
}

/** The operations two revisions of a Path Item hold under one method; a side is absent when its item has none. */
export interface OperationPair<T extends { method: LowerMethod } = OperationNode> {
  method: LowerMethod;
  base?: T;
  head?: T;
}

/**
 * Pairs the operations of two revisions of a Path Item by method, in `HTTP_METHODS` order, for
 * comparing them: every method either side has, once.
 */
export function pairOperations<T extends { method: LowerMethod }>(
  base: readonly T[],
  head: readonly T[],
): OperationPair<T>[] {
  const pairs: OperationPair<T>[] = [];
  for (const method of HTTP_METHODS) {
    const b = base.find((op) => op.method === method);
    const h = head.find((op) => op.method === method);
    if (b || h) pairs.push({ method, ...(b && { base: b }), ...(h && { head: h }) });
  }
  return pairs;
}

function readParameters(document: unknown, raw: unknown, pointer: string): ParameterModel[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new DocumentError(pointer, '`parameters` must be an array.');
  return raw.map((entry, index) => {
    const { node, pointer: at } = resolveRef(document, entry, `${pointer}/${index}`);
    const location = node.in;
    if (
      location !== 'path' &&
      location !== 'query' &&
      location !== 'header' &&
      location !== 'cookie'
    ) {
      throw new DocumentError(
        `${at}/in`,
        `Unknown parameter location ${JSON.stringify(location)}.`,
      );
    }
    if (typeof node.name !== 'string')
      throw new DocumentError(`${at}/name`, 'A parameter needs a name.');
    const style = typeof node.style === 'string' ? node.style : DEFAULT_STYLE[location];
    let schema = node.schema;
    if (schema === undefined && node.content !== undefined)
      schema = pickMedia(node.content)?.schema;
    return {
      name: node.name,
      in: location,
      // §4.7.12: a path parameter is always required.
      required: location === 'path' || node.required === true,
      schema,
      style,
      explode: typeof node.explode === 'boolean' ? node.explode : style === 'form',
      node,
      pointer: at,
    };
  });
}

/**
 * The identity of a parameter within an operation (§4.7.9: "a unique parameter is defined by a
 * combination of a name and location"), header names compared case-insensitively as HTTP does
 * (§4.7.12). The model's merge and the breaking-change engine's pairing both key by it.
 *
 * @example parameterKey('header', 'Idempotency-Key') // 'header:idempotency-key'
 */
export function parameterKey(location: unknown, name: unknown): string {
  const text = String(name);
  return `${String(location)}:${location === 'header' ? text.toLowerCase() : text}`;
}

function mergeParameters(shared: ParameterModel[], own: ParameterModel[]): ParameterModel[] {
  const key = (p: ParameterModel) => parameterKey(p.in, p.name);
  const ownKeys = new Set(own.map(key));
  return [...shared.filter((p) => !ownKeys.has(key(p))), ...own];
}

function readRequestBody(
  document: unknown,
  raw: unknown,
  pointer: string,
): OperationModel['requestBody'] {
  if (raw === undefined) return null;
  const { node, pointer: at } = resolveRef(document, raw, pointer);
  const media = pickMedia(node.content);
  if (media === null) return null;
  return {
    required: node.required === true,
    media,
    content: listMedia(node.content),
    node,
    pointer: at,
  };
}

function readResponses(document: unknown, raw: unknown, pointer: string): ResponseModel[] {
  if (raw === undefined) return [];
  if (raw === null || typeof raw !== 'object') {
    throw new DocumentError(pointer, '`responses` must be an object.');
  }
  const responses: ResponseModel[] = [];
  for (const [status, entry] of Object.entries(raw as Record<string, unknown>)) {
    if (status.startsWith('x-')) continue;
    const { node, pointer: at } = resolveRef(document, entry, `${pointer}/${escapeToken(status)}`);
    responses.push({
      status,
      media: pickMedia(node.content),
      content: listMedia(node.content),
      node,
      pointer: at,
    });
  }
  return responses;
}

function readKeyKinds(raw: unknown, pointer: string): KeyKind[] | null {
  const kinds = readStringList(raw, pointer);
  for (const kind of kinds ?? []) {
    if (!isKeyKind(kind)) {
      throw new DocumentError(
        pointer,
        `Unknown key kind "${kind}": expected one of ${KEY_KINDS.join(', ')}.`,
      );
    }
  }
  return kinds as KeyKind[] | null;
}

function readStringList(raw: unknown, pointer: string): string[] | null {
  if (raw === undefined) return null;
  if (!Array.isArray(raw) || raw.some((item) => typeof item !== 'string')) {
    throw new DocumentError(pointer, 'Expected a list of strings.');
  }
  return raw as string[];
}
