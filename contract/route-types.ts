/**
 * The types `generated/routes.ts` is written against. Hand-written, so the generator only emits
 * data and per-operation types, and the server, the generator and its tests share one contract.
 * Neutral ground: the server, the generators and the toolchain import it; it imports nothing of
 * theirs.
 */
import type { KeyKind } from './key-kinds.js';

/**
 * A JSON Schema (draft-07 as Ajv reads it) converted from an OpenAPI 3.0 Schema Object by
 * `tooling/openapi/json-schema.ts`. Component schemas carry `$id`s (`urn:openapi:...`) that route
 * schemas `$ref`: register every entry of `componentSchemas` with `ajv.addSchema` first. The
 * output uses only draft-07 keywords and the formats of ajv-formats, so Ajv's strict mode
 * accepts it as is.
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH' | 'TRACE';

export type { KeyKind };

/** Where a parameter sits (OpenAPI 3.0.3 §4.7.12 "in"). */
export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/**
 * How a parameter is serialised, so the server can parse `style: deepObject`
 * (`created[gt]=1`) and `explode: false` arrays (`a,b,c`) before validation.
 */
export interface RouteParameter {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly required: boolean;
  readonly style: string;
  readonly explode: boolean;
}

/**
 * JSON Schemas for each part of a request and, per status, each response body. */
export interface RouteSchemas {
  /** Path parameters; `querystring` rejects unknown names (`additionalProperties: false`). */
  readonly params?: JsonSchema;
  readonly querystring?: JsonSchema;
  /** Header parameters, names lower-cased as Node delivers them; other headers pass. */
  readonly headers?: JsonSchema;
  /** The request body for `bodyMediaType`, readOnly properties removed. */
  readonly body?: JsonSchema;
  /** Response bodies, writeOnly properties removed. Keyed by status as written in the spec: `'200'`, `'4XX'`, `'default'`. */
  readonly response: { readonly [status: string]: JsonSchema };
}

/** One operation of the spec, as the server registers it. */
export interface RouteDefinition {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** The OpenAPI path template, e.g. `/v1/patients/{id}`. */
  readonly path: string;
  /** The same path in Fastify's syntax, e.g. `/v1/patients/:id`. */
  readonly url: string;
  readonly tags: readonly string[];
  readonly summary: string;
  /** Scopes that allow the call (`x-scopes`); empty when the key kind alone decides. */
  readonly scopes: readonly string[];
  /** Key kinds that may call it (`x-key-kinds`); `null` when the spec does not restrict it. */
  readonly keyKinds: readonly KeyKind[] | null;
  readonly bodyRequired: boolean;
  /** Media type of the request body, when there is one. */
  readonly bodyMediaType: string | null;
  readonly parameters: readonly RouteParameter[];
  readonly schemas: RouteSchemas;
}

/** What a handler receives: the validated request parts, typed from the spec. */
export interface HandlerRequest<Params, Query, Body, Headers> {
  readonly params: Params;
  readonly query: Query;
  readonly body: Body;
  readonly headers: Headers;
}

declare const jsonTextOf: unique symbol;

/**
 * JSON text already serialised from a `T`, sent as it is (no parse and stringify on the way
 * out). Only code that builds the text from parts known to be `T`'s JSON (stored documents
 * written with `JSON.stringify`) should make one: the brand is a promise the compiler cannot
 * check. Test suites validate every response body against the spec, spliced or not.
 */
export type JsonText<T> = string & { readonly [jsonTextOf]: T };

/** What a handler returns: one of the statuses the spec lists, with that status's body type. */
export type HandlerReply<Responses> = {
  [Status in keyof Responses]: {
    readonly status: Status extends `${infer N extends number}` ? N : Status;
    readonly body: Responses[Status] | JsonText<Responses[Status]>;
    readonly headers?: Readonly<Record<string, string>>;
  };
}[keyof Responses];

/**
 * The reply of a generated handler stub (`server/handlers/not-implemented.ts`): 501 in the error
 * envelope. Every handler may return it, so a stub compiles before its operation is written.
 */
export interface NotImplementedReply {
  readonly status: 501;
  readonly body: {
    readonly error: {
      readonly type: 'api_error';
      readonly code: 'not_implemented';
      readonly message: string;
      readonly param: null;
      readonly doc_url: string;
      readonly request_id: string | null;
    };
  };
}

/** Per-operation types, as `generated/routes.ts` emits them in `OperationTypes`. */
export interface OperationShape {
  params: unknown;
  query: unknown;
  body: unknown;
  headers: unknown;
  responses: Record<string | number, unknown>;
}

/** A route handler for one operation, given the server's own context type. */
export type Handler<Op extends OperationShape, Ctx> = (
  request: HandlerRequest<Op['params'], Op['query'], Op['body'], Op['headers']>,
  ctx: Ctx,
) =>
  | Promise<HandlerReply<Op['responses']> | NotImplementedReply>
  | HandlerReply<Op['responses']>
  | NotImplementedReply;

/** Every operation's handler: an operation without one is a compile error. */
export type HandlerMap<Ops extends { [operationId: string]: OperationShape }, Ctx> = {
  [OperationId in keyof Ops]: Handler<Ops[OperationId], Ctx>;
};
