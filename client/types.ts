/**
 * Types of the operation table a generated client module emits and of the typed methods the
 * runtime builds from it. Request options and response bodies are typed from openapi-typescript's
 * `paths` exactly the way openapi-fetch types them (same `MaybeOptionalInit`, `Readable`,
 * `ParseAsResponse`), so `client.listPatients(init)` and `client.raw.GET('/v1/patients', init)`
 * accept and return the same things.
 */
import type { Client, MaybeOptionalInit, ParseAsResponse } from 'openapi-fetch';
import type {
  ErrorStatus,
  GetResponseContent,
  HttpMethod,
  MediaType,
  OkStatus,
  Readable,
  RequiredKeysOf,
} from 'openapi-typescript-helpers';

/** Where a list operation takes its "next page" cursor (docs/design.md#lists: `starting_after`). */
export interface CursorSpec {
  readonly in: 'query' | 'body';
  readonly name: string;
}

/** One row of the generated operation table. */
export interface OperationSpec {
  readonly method: HttpMethod;
  /** The OpenAPI path template, a key of `paths`. */
  readonly path: string;
  /** The document's operationId, when it has one (method names are derived from it). */
  readonly operationId?: string;
  /** True when the 200 response is a list envelope (`has_more` + `data`). */
  readonly list: boolean;
  /** Present on lists that can be walked page by page; enables `.all()`. */
  readonly cursor?: CursorSpec;
}

/** The generated table: client method name → operation. */
export type OperationTable = { readonly [name: string]: OperationSpec };

/** The path item of an operation, or `never` when the table and `paths` disagree. */
type PathItemOf<Paths, Op extends OperationSpec> = Op['path'] extends keyof Paths
  ? Paths[Op['path']]
  : never;

/** The openapi-typescript operation object (parameters, requestBody, responses). */
export type OperationObjectOf<
  Paths,
  Op extends OperationSpec,
> = Op['method'] extends keyof PathItemOf<Paths, Op> ? PathItemOf<Paths, Op>[Op['method']] : never;

/** What a method accepts as its single options argument (params, body, headers, signal, ...). */
export type OperationInit<Paths, Op extends OperationSpec> = Op['method'] extends keyof PathItemOf<
  Paths,
  Op
>
  ? MaybeOptionalInit<PathItemOf<Paths, Op>, Op['method']>
  : never;

/** Optional when nothing inside is required, as in openapi-fetch. */
type InitParam<Init> = RequiredKeysOf<Init> extends never ? [init?: Init] : [init: Init];

type ResponsesOf<Operation> = Operation extends {
  responses: infer R extends Record<string | number, unknown>;
}
  ? R
  : Record<never, never>;

/** `404` stays `404`; `'4XX'` and `'default'` can be any status. */
type StatusNumber<S> = S extends number ? S : number;

/** One arm per documented status, so `status === 404` narrows `error` to the 404 body. */
type ResultByStatus<Operation, Init, Media extends MediaType> = {
  [S in keyof ResponsesOf<Operation>]: S extends OkStatus
    ? {
        data: ParseAsResponse<Readable<GetResponseContent<ResponsesOf<Operation>, Media, S>>, Init>;
        error?: never;
        status: StatusNumber<S>;
        response: Response;
      }
    : S extends ErrorStatus
      ? {
          data?: never;
          error: Readable<GetResponseContent<ResponsesOf<Operation>, Media, S>>;
          status: StatusNumber<S>;
          response: Response;
        }
      : never;
}[keyof ResponsesOf<Operation>];

/** Fallback for operations that document no usable status. */
interface UntypedResult {
  data?: unknown;
  error?: unknown;
  status: number;
  response: Response;
}

/**
 * What every typed method resolves to: `{ data, error, status, response }`, a union with one
 * member per documented status. `if (error)` separates failures from successes, and
 * `status === 409` (or a destructured `status`) narrows `error` to that status's body.
 */
export type OperationResult<Operation, Init = unknown, Media extends MediaType = MediaType> = [
  ResultByStatus<Operation, Init, Media>,
] extends [never]
  ? UntypedResult
  : ResultByStatus<Operation, Init, Media>;

/** The element type of a list operation's `data` array. */
export type ListItemOf<
  Operation,
  Media extends MediaType = MediaType,
> = 200 extends keyof ResponsesOf<Operation>
  ? Readable<GetResponseContent<ResponsesOf<Operation>, Media, 200>> extends {
      data: readonly (infer Item)[];
    }
    ? Item
    : unknown
  : unknown;

/** `.all()` on list methods: every item of every page, following the cursor. */
export interface Paginated<Paths, Op extends OperationSpec, Media extends MediaType> {
  /**
   * Walks the list page by page (`starting_after` = last id of the previous page) and yields each
   * item; stops when `has_more` is false. Throws an `ApiError` if a page fails (after retries).
   * @example
   * for await (const patient of client.listPatients.all({ params: { query: { limit: 100 } } })) {
   *   console.log(patient.id);
   * }
   */
  all(
    ...init: InitParam<OperationInit<Paths, Op>>
  ): AsyncGenerator<ListItemOf<OperationObjectOf<Paths, Op>, Media>, void, undefined>;
}

/**
 * One typed method: the operation's options in, its per-status result out. Not generic in the
 * options (unlike openapi-fetch's `GET`), so object literals get excess-property checks and a
 * misspelt parameter or body field does not compile; bodies are always parsed as JSON (use
 * `client.raw` with `parseAs` for anything else).
 */
export type OperationMethod<Paths, Op extends OperationSpec, Media extends MediaType> = ((
  ...init: InitParam<OperationInit<Paths, Op>>
) => Promise<OperationResult<OperationObjectOf<Paths, Op>, unknown, Media>>) &
  (Op extends { readonly cursor: CursorSpec } ? Paginated<Paths, Op, Media> : unknown);

/** A client: one method per operation of the table, plus the path-typed openapi-fetch client. */
export type OperationClient<
  Paths extends {},
  Ops extends OperationTable,
  Media extends MediaType = MediaType,
> = { readonly [Name in keyof Ops]: OperationMethod<Paths, Ops[Name], Media> } & {
  /**
   * The openapi-fetch client with the same auth, version header, idempotency keys and retries.
   * @example const { data } = await client.raw.GET('/v1/patients/{id}', { params: { path: { id } } });
   */
  readonly raw: Client<Paths, Media>;
};
