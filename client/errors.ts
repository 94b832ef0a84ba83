/**
 * The two errors the runtime throws outside of misuse (misuse throws `TypeError`): typed methods
 * never throw for an HTTP status, they return `{ error, status }`. These cover what a result
 * cannot: a request that never got a response, and a failed page inside a `for await` loop.
 */

/** No HTTP response after every allowed attempt (DNS, refused connection, reset, ...). */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  /** How many times the request was sent. */
  readonly attempts: number;

  constructor(attempts: number, cause: unknown) {
    super(`request failed without a response after ${attempts} attempt(s)`, { cause });
    this.attempts = attempts;
  }
}

/**
 * A page of `.all()` answered with an error status; carries the spec's error envelope.
 * The message holds only status, type and code: never the server's message, which is free text.
 */
export class ApiError<Body = unknown> extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly error: Body;
  readonly response: Response;

  constructor(status: number, error: Body, response: Response) {
    super(`API request failed with status ${status}${describeEnvelope(error)}`);
    this.status = status;
    this.error = error;
    this.response = response;
  }
}

function describeEnvelope(body: unknown): string {
  const inner = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (!inner) return '';
  const type = typeof inner.type === 'string' ? inner.type : 'unknown';
  const code = typeof inner.code === 'string' ? ` ${inner.code}` : '';
  return ` (${type}${code})`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
