/**
 * The types `generated/routes.ts` is written against. Hand-written, so the generator only emits
 * data and per-operation types, and the server, the generator and its tests share one contract.
 */

/** A JSON Schema (draft-07 as Ajv reads it) converted from an OpenAPI 3.0 Schema Object. */
export type JsonSchema = { readonly [keyword: string]: unknown };

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH' | 'TRACE';

/** The kinds of API key the design knows (api.md §8). */
export type KeyKind = 'secret' | 'restricted' | 'publishable' | 'ephemeral';

/** JSON Schemas for each part of a request and, per status, each response body. */
export interface RouteSchemas {
  readonly params?: JsonSchema;
  readonly querystring?: JsonSchema;
  readonly headers?: JsonSchema;
  readonly body?: JsonSchema;
  /** Keyed by status as written in the spec: `'200'`, `'4XX'`, `'default'`. */
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
  readonly schemas: RouteSchemas;
}

/** What a handler receives: the validated request parts, typed from the spec. */
export interface HandlerRequest<Params, Query, Body, Headers> {
  readonly params: Params;
  readonly query: Query;
  readonly body: Body;
  readonly headers: Headers;
}

/** What a handler returns: one of the statuses the spec lists, with that status's body type. */
export type HandlerReply<Responses> = {
  [Status in keyof Responses]: {
    readonly status: Status extends `${infer N extends number}` ? N : Status;
    readonly body: Responses[Status];
    readonly headers?: Readonly<Record<string, string>>;
  };
}[keyof Responses];

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
) => Promise<HandlerReply<Op['responses']>> | HandlerReply<Op['responses']>;

/** Every operation's handler: an operation without one is a compile error. */
export type HandlerMap<Ops extends { [operationId: string]: OperationShape }, Ctx> = {
  [OperationId in keyof Ops]: Handler<Ops[OperationId], Ctx>;
};
