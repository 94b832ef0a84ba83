/**
 * Builds a client from a generated operation table: one typed method per operation on top of
 * openapi-fetch, and the raw path-typed client, all sharing one `fetch` pipeline that adds the
 * idempotency key and retries (auth, version and actor travel as default headers).
 */
import createClient from 'openapi-fetch';
import type { MediaType } from 'openapi-typescript-helpers';
import { ACTOR_HEADER, isActor } from '../contract/actor.js';
import { ensureIdempotencyKey } from './idempotency.js';
import { paginate } from './paginate.js';
import { checkRetryOptions, createRetryingFetch, type RetryOptions } from './retry.js';
import type { OperationClient, OperationTable } from './types.js';

/** Header that selects the dated API version (docs/design.md#versioning). */
export const VERSION_HEADER = 'PatientCare-Version';

/** Options of `createPatientCareClient` (and of `createOperationClient`). */
export interface ClientOptions extends RetryOptions {
  /** Secret, restricted, publishable or ephemeral key; sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** API origin, e.g. `http://127.0.0.1:4010`; defaults to the document's first server. */
  baseUrl?: string;
  /** A `fetch` to use instead of `globalThis.fetch` (tests, proxies, instrumentation). */
  fetch?: (request: Request) => Promise<Response>;
  /** The API version to request (in the document's version header, `PatientCare-Version` for ours); defaults to the version the client was generated from, `null` sends none. */
  version?: string | null;
  /**
   * The person or system acting, sent as `PatientCare-Actor` on every request and recorded on
   * its audit rows: an opaque id you assign (1–64 characters of `A-Z a-z 0-9 . _ : @ -`),
   * never PHI. One call can name another with `params: { header: { 'PatientCare-Actor': … } }`.
   */
  actor?: string;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Makes `Idempotency-Key`s for POSTs that have none (default `crypto.randomUUID`). */
  generateIdempotencyKey?: () => string;
}

/** What the generated module knows about its document. */
export interface DocumentDefaults {
  /** `info.version`, sent in `versionHeader` unless the caller chooses another. */
  readonly apiVersion?: string;
  /** The header the version travels in; `PatientCare-Version` when absent, `null` for none. */
  readonly versionHeader?: string | null;
  /** The first `servers[].url` without variables. */
  readonly defaultBaseUrl?: string;
}

type UntypedRequest = (
  method: string,
  path: string,
  init?: unknown,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * Creates a client for any operation table made by `generators/client.ts`. Throws `TypeError`
 * only for misuse (missing key or base URL, bad retry options).
 * @example
 * const client = createOperationClient<paths, typeof operations>(operations, { apiKey, baseUrl });
 * const { data, error } = await client.listPatients({ params: { query: { limit: 5 } } });
 */
export function createOperationClient<
  Paths extends {},
  Ops extends OperationTable,
  Media extends MediaType = MediaType,
>(
  operations: Ops,
  options: ClientOptions,
  defaults: DocumentDefaults = {},
): OperationClient<Paths, Ops, Media> {
  checkClientOptions(options);
  checkRetryOptions(options);
  const baseUrl = options.baseUrl ?? defaults.defaultBaseUrl;
  if (!baseUrl) throw new TypeError('baseUrl is required: the document names no server');
  const version = options.version === undefined ? defaults.apiVersion : options.version;
  const versionHeader =
    defaults.versionHeader === undefined ? VERSION_HEADER : defaults.versionHeader;
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retrying = createRetryingFetch(send, options);
  const raw = createClient<Paths, Media>({
    baseUrl,
    headers: {
      ...options.headers,
      Authorization: `Bearer ${options.apiKey}`,
      ...(version && versionHeader ? { [versionHeader]: version } : {}),
      ...(options.actor === undefined ? {} : { [ACTOR_HEADER]: options.actor }),
    },
    fetch: (request: Request) => {
      ensureIdempotencyKey(request, options.generateIdempotencyKey);
      return retrying(request);
    },
  });

  const request = raw.request as UntypedRequest;
  const client: Record<string, unknown> = { raw };
  for (const [name, op] of Object.entries(operations)) {
    const method = async (init?: unknown) => {
      const result = await request(op.method, op.path, init);
      return {
        data: result.data,
        error: result.error,
        status: result.response.status,
        response: result.response,
      };
    };
    const cursor = op.cursor;
    client[name] = cursor
      ? Object.assign(method, {
          all: (init?: Parameters<typeof paginate>[2]) => paginate(method, cursor, init),
        })
      : method;
  }
  return client as OperationClient<Paths, Ops, Media>;
}

function checkClientOptions(options: ClientOptions): void {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('options object is required');
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new TypeError('apiKey is required');
  }
  if (/\s/.test(options.apiKey)) throw new TypeError('apiKey must not contain whitespace');
  if (options.baseUrl !== undefined && typeof options.baseUrl !== 'string') {
    throw new TypeError('baseUrl must be a string');
  }
  // Checked here, where the mistake is made, rather than as a 400 on every request; the
  // message leaves the value out, as it could be PHI sent by mistake.
  if (options.actor !== undefined && !isActor(options.actor)) {
    throw new TypeError('actor must be 1-64 characters of A-Z a-z 0-9 . _ : @ - (never PHI)');
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    throw new TypeError('fetch must be a function');
  }
}
