/**
 * The one walk over a document's operations, which the generators, the server's route table,
 * the spec gate and the fuzzer read: one entry per Operation Object (OpenAPI 3.0.3 §4.7.10)
 * found under the Paths Object (§4.7.8), with path-level and operation-level parameters merged
 * (§4.7.9 "parameters": an operation's parameter overrides the path's one with the same `name`
 * and `in`), the request body and responses resolved through `$ref`s, and the project's
 * extensions (`x-scopes`, `x-key-kinds`) read and checked.
 *
 * Underneath is the model's one reader of Path Items, `readPathItem` (`path-items.ts`), read
 * strictly here: the tolerant breaking-change engine reads the same operations, parameters,
 * bodies and media types through it (docs/design.md#toolchain).
 */
import { isKeyKind, KEY_KINDS, type KeyKind } from '../../contract/key-kinds.js';
import type { LowerMethod } from '../../contract/openapi-document.js';
import { toPointer } from '../../contract/pointer.js';
import type { ParameterLocation } from '../../contract/route-types.js';
import type { NodeAt } from './document.js';
import { DocumentError } from './errors.js';
import { chooseMedia, type MediaAt, type MediaModel, pickMedia } from './media.js';
import { derivedOperationId } from './names.js';
import { type PaginationModel, readPagination } from './pagination.js';
import { type RequestBodyAt, type ResponseAt, readPathItem } from './path-items.js';

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
  for (const [path, node] of Object.entries(document.paths ?? {})) {
    const item = { node, pointer: toPointer(['paths', path]) };
    for (const read of readPathItem(document, item, { strict: true })) {
      const { method, node: op, pointer } = read;
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
      const parameters = [...read.parameters.values()].map(parameterModel);
      const requestBody = requestBodyModel(read.requestBody);
      const responses = [...read.responses.entries()].map(([status, r]) =>
        responseModel(status, r),
      );
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

/** A parameter as `readPathItem` hands it over (strict: resolved, `in` and `name` checked). */
function parameterModel({ node: raw, pointer }: NodeAt): ParameterModel {
  const node = raw as Record<string, unknown>;
  const location = node.in as ParameterLocation;
  const style = typeof node.style === 'string' ? node.style : DEFAULT_STYLE[location];
  let schema = node.schema;
  if (schema === undefined && node.content !== undefined) schema = pickMedia(node.content)?.schema;
  return {
    name: node.name as string,
    in: location,
    // §4.7.12: a path parameter is always required.
    required: location === 'path' || node.required === true,
    schema,
    style,
    explode: typeof node.explode === 'boolean' ? node.explode : style === 'form',
    node,
    pointer,
  };
}

const mediaModels = (content: Map<string, MediaAt>): MediaModel[] =>
  [...content.values()].map(({ mediaType, schema }) => ({ mediaType, schema: schema.node }));

function requestBodyModel(body: RequestBodyAt): RequestBodyModel | null {
  const content = mediaModels(body.content);
  const media = chooseMedia(content);
  if (body.node === undefined || media === null) return null;
  const node = body.node as Record<string, unknown>;
  return { required: node.required === true, media, content, node, pointer: body.pointer };
}

function responseModel(status: string, response: ResponseAt): ResponseModel {
  const content = mediaModels(response.content);
  return {
    status,
    media: chooseMedia(content),
    content,
    node: response.resolved.node as Record<string, unknown>,
    pointer: response.resolved.pointer,
  };
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
