/**
 * The checks every answer must pass, after Schemathesis's: no 5xx; a status the spec lists
 * for the operation; a body (and the headers every response carries) matching the spec for
 * that status — the same `ResponseChecker` the service tests use; invalid input never
 * accepted; valid input not rejected, except the answers listed in `ACCEPTABLE_FOR_VALID`.
 */

import type { FuzzCase } from './case-types.js';
import type { WireResponse } from './http.js';
import type { ResponseChecker } from './response-checker.js';

/**
 * The only non-2xx answers a valid case may get, and why each is right:
 * - 404 `resource_missing`: the case named a random well-formed id on purpose (path or body
 *   reference), which exists in no database;
 * - 400 `token_invalid` on createPatient: the case sent a well-formed intake token that was
 *   never issued; the design answers an unusable token with 400 `token_invalid` (spec/openapi.yaml,
 *   "Errors"), not 404.
 * Nothing else: 409 cannot happen (identifier values carry a run counter, idempotency keys
 * are unique), 429 cannot happen (rate limits set far above the run), and every other 4xx
 * means a valid request was refused.
 */
export function acceptableForValid(c: FuzzCase, status: number, code: string | undefined): boolean {
  if (!c.unknownReference) return false;
  if (status === 404 && code === 'resource_missing') return true;
  return c.operationId === 'createPatient' && status === 400 && code === 'token_invalid';
}

/** The error code of a `/v1` error envelope, or of an OperationOutcome's first issue. */
function errorCode(body: unknown): string | undefined {
  const error = (body as { error?: { code?: unknown } } | undefined)?.error;
  if (typeof error?.code === 'string') return error.code;
  const issue = (body as { issue?: { details?: { coding?: { code?: unknown }[] } }[] } | undefined)
    ?.issue?.[0];
  const code = issue?.details?.coding?.[0]?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The problems of one answer (empty when it passes every check). */
export function checkAnswer(
  checker: ResponseChecker,
  c: FuzzCase,
  url: string,
  response: WireResponse,
): string[] {
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`server error ${response.status}`);
  if (response.parseError !== undefined) {
    problems.push(`response body is not JSON: ${response.parseError}`);
  } else {
    try {
      checker.check(c.method, url, {
        status: response.status,
        headers: response.headers,
        body: response.body,
        text: response.text,
      });
    } catch (error) {
      // The checker appends the whole body; the failure report prints it once anyway.
      problems.push((error as Error).message.split('\n')[0] ?? '');
    }
  }
  const ok = response.status >= 200 && response.status < 300;
  if (!c.valid && ok) problems.push(`invalid input accepted (${c.why})`);
  if (c.valid && !ok && response.status < 500) {
    const code = errorCode(response.body);
    if (!acceptableForValid(c, response.status, code)) {
      problems.push(`valid input rejected: ${response.status} ${code ?? ''}`.trim());
    }
  }
  return problems;
}
