/**
 * Bounded retries with exponential backoff and jitter, as a `fetch` wrapper so typed methods and
 * `client.raw` behave the same. Retried: network errors, 409 `idempotency_key_in_use`, 429
 * (waiting `Retry-After` when given) and 5xx except 501 (not implemented will not change).
 * Only requests that are safe to repeat are retried: idempotent methods, and anything carrying an
 * `Idempotency-Key` (every POST does, see idempotency.ts), whose retries reuse the same key.
 */
import { ConnectionError } from './errors.js';
import { IDEMPOTENCY_HEADER } from './idempotency.js';

/** Why a response or failure is retried. */
export type RetryReason =
  | 'network_error'
  | 'rate_limited'
  | 'idempotency_key_in_use'
  | 'server_error';

/** Tuning of the retry schedule; every field has a default. */
export interface RetryOptions {
  /** Retries after the first attempt (default 2, so at most 3 requests). */
  maxRetries?: number;
  /** Backoff before the first retry, doubled each time (default 500 ms). */
  initialDelayMs?: number;
  /** Upper bound of the backoff (default 8 s). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the 429 is returned (default 60 s). */
  maxRetryAfterMs?: number;
  /** Waits between attempts; replaceable so tests run without real time. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of jitter in [0, 1) (default `Math.random`). */
  random?: () => number;
  /** Called before each wait, e.g. for logging (never receives bodies). */
  onRetry?: (event: RetryEvent) => void;
}

/** What `onRetry` is told before waiting. */
export interface RetryEvent {
  /** 1 for the first retry. */
  readonly retry: number;
  readonly delayMs: number;
  readonly reason: RetryReason;
  /** The status that caused it; absent for network errors. */
  readonly status?: number;
}

type Fetch = (request: Request, init?: Record<string, unknown>) => Promise<Response>;

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

/** Checks `RetryOptions` once, at client creation; bad values are misuse. */
export function checkRetryOptions(options: RetryOptions): void {
  for (const key of ['maxRetries', 'initialDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new TypeError(`${key} must be a finite number >= 0`);
    }
  }
  if (options.maxRetries !== undefined && !Number.isInteger(options.maxRetries)) {
    throw new TypeError('maxRetries must be an integer');
  }
}

/**
 * Wraps `fetch` with the retry policy. The request passed in is never sent itself while retries
 * remain: each attempt sends a clone, so the body can be sent again.
 */
export function createRetryingFetch(fetch: Fetch, options: RetryOptions = {}): Fetch {
  const maxRetries = options.maxRetries ?? 2;
  const sleep = options.sleep ?? abortableSleep;
  return async (request, init) => {
    const repeatable =
      IDEMPOTENT_METHODS.has(request.method) || request.headers.has(IDEMPOTENCY_HEADER);
    for (let retry = 0; ; retry++) {
      const last = !repeatable || retry >= maxRetries;
      let response: Response;
      try {
        response = await fetch(last ? request : request.clone(), init);
      } catch (cause) {
        if (request.signal.aborted) throw cause;
        if (last) throw new ConnectionError(retry + 1, cause);
        await wait(retry + 1, backoffDelay(retry + 1, options), 'network_error', undefined);
        continue;
      }
      if (last) return response;
      const reason = await retryReason(response);
      if (!reason) return response;
      const delayMs = delayFor(response, retry + 1, options);
      if (delayMs === undefined) return response;
      // Free the connection: the body of a response we retry is never read. Not awaited: the
      // cancel of a tee'd body (after `clone()`) settles only when every branch is done.
      response.body?.cancel().catch(() => undefined);
      await wait(retry + 1, delayMs, reason, response.status);
    }

    async function wait(retry: number, delayMs: number, reason: RetryReason, status?: number) {
      options.onRetry?.(
        status === undefined ? { retry, delayMs, reason } : { retry, delayMs, reason, status },
      );
      await sleep(delayMs, request.signal);
    }
  };
}

/** The reason to retry this response, or `undefined` when it is final. */
export async function retryReason(response: Response): Promise<RetryReason | undefined> {
  const { status } = response;
  if (status === 429) return 'rate_limited';
  if (status >= 500 && status !== 501) return 'server_error';
  if (status === 409) {
    const body: unknown = await response
      .clone()
      .json()
      .catch(() => undefined);
    const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
    if (code === 'idempotency_key_in_use') return 'idempotency_key_in_use';
  }
  return undefined;
}

/** `Retry-After` when the response has one (too long: `undefined`, do not retry), else backoff. */
function delayFor(response: Response, retry: number, options: RetryOptions): number | undefined {
  const retryAfter = parseRetryAfter(response.headers.get('Retry-After'), Date.now());
  if (retryAfter === undefined) return backoffDelay(retry, options);
  return retryAfter <= (options.maxRetryAfterMs ?? 60_000) ? retryAfter : undefined;
}

/**
 * Exponential backoff with "equal jitter": half the step is fixed, half random, so clients that
 * failed together do not retry together, yet every wait is at least half the nominal step.
 * `retry` is 1 for the first retry.
 */
export function backoffDelay(retry: number, options: RetryOptions = {}): number {
  const initial = options.initialDelayMs ?? 500;
  const max = options.maxDelayMs ?? 8_000;
  const step = Math.min(max, initial * 2 ** (retry - 1));
  const random = options.random ?? Math.random;
  return Math.round(step / 2 + (step / 2) * random());
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; `undefined` if absent or bad. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date always names the day or month; this keeps `-1` or `1.5` from parsing as years.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** `setTimeout` as a promise that rejects with the signal's reason when aborted. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
