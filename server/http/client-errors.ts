/**
 * Answers for requests Node's HTTP parser refuses before Fastify sees them (malformed framing,
 * oversized headers, timeouts): the socket's 'clientError' event, through Fastify's
 * `clientErrorHandler`. Without it Fastify writes its own body without a `Request-Id`. There
 * is no request object here, so the envelope is written to the socket directly and the
 * connection is closed: after a framing error nothing more on it can be trusted.
 */

import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Db } from '../db/types.js';
import { ApiError, type ErrorCode, errorEnvelope } from '../errors.js';
import { fhirRefusal, isFhirTarget } from '../fhir/refusal.js';
import { newId } from '../ids.js';
import { renderIn } from '../versioning/index.js';
import { earlyAnswerVersion, namedVersion } from './version.js';

/** Which registry code a parser error becomes; everything not listed is malformed framing. */
function clientErrorCode(error: { code?: unknown }): ErrorCode {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  return 'request_malformed';
}

/**
 * The request's target when the parser got that far: the routed request's (a body too slow),
 * else the request line at the start of the refused bytes. `undefined` when neither is known
 * (headers that never finished arriving).
 */
function requestTarget(error: { rawPacket?: unknown }, socket: Socket): string | undefined {
  const routed = (socket as Socket & { _httpMessage?: { req?: { url?: string } } })._httpMessage;
  if (routed?.req?.url !== undefined) return routed.req.url;
  if (!Buffer.isBuffer(error.rawPacket)) return undefined;
  const line = /^[A-Z]+ (\/\S*)/.exec(error.rawPacket.subarray(0, 2048).toString('latin1'));
  return line?.[1];
}

/**
 * The raw HTTP/1.1 response for `code`, with the headers every error carries; under
 * `/fhir/R4` an OperationOutcome (server/fhir/refusal.ts), elsewhere the envelope.
 */
function clientErrorResponse(
  code: ErrorCode,
  requestId: string,
  apiVersion: string,
  target: string | undefined,
): string {
  const api = new ApiError(code);
  const fhir = isFhirTarget(target) ? fhirRefusal(code) : undefined;
  const body = fhir?.body ?? JSON.stringify(renderIn(apiVersion, errorEnvelope(api, requestId)));
  const lines = [
    `HTTP/1.1 ${api.statusCode} ${STATUS_CODES[api.statusCode] ?? 'Error'}`,
    `Content-Type: ${fhir?.contentType ?? 'application/json; charset=utf-8'}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Request-Id: ${requestId}`,
    `PatientCare-Version: ${apiVersion}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    'Connection: close',
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

interface ClientErrorLog {
  info(obj: object, message: string): void;
}

/** A response already under way on the socket (its headers written): nothing can follow it. */
function responseStarted(socket: Socket): boolean {
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  return current?.headersSent === true;
}

/**
 * The headers of the request the parser was reading when it refused, when they were read (a
 * body that broke its framing, a request that timed out after its headers): Node keeps them on
 * the response under way, or on the parser's message before one was made.
 */
function headersRead(socket: Socket): Record<string, string | string[] | undefined> | undefined {
  const s = socket as Socket & {
    _httpMessage?: { req?: { headers?: Record<string, string | string[] | undefined> } };
    parser?: { incoming?: { headers?: Record<string, string | string[] | undefined> } | null };
  };
  return s._httpMessage?.req?.headers ?? s.parser?.incoming?.headers ?? undefined;
}

/**
 * The `clientErrorHandler` for `buildApp`; Fastify calls it with the instance as `this`, whose
 * logger it uses. Logs the code and request id only: the raw bytes could hold PHI (a URL, a
 * header value).
 */
export function clientErrorHandler(
  apiVersions: readonly string[],
  /** The database whose account pin versions answers without the header; none: the latest. */
  db?: Db,
): (
  this: { log: ClientErrorLog } | undefined,
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Socket,
) => void {
  // Sockets whose answer waits on the pin's read: more bytes may make the parser refuse again
  // meanwhile, and one answer is all a connection gets.
  const waiting = new WeakSet<Socket>();
  return function answerClientError(error, socket) {
    // A reset connection has no one to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed || waiting.has(socket)) return;
    const code = clientErrorCode(error);
    const requestId = newId('req');
    this?.log.info(
      { requestId, code, parserCode: error.code ?? null },
      'request refused before routing',
    );
    if (!socket.writable || responseStarted(socket)) {
      socket.destroy();
      return;
    }
    const target = requestTarget(error, socket);
    const answer = (version: string): void => {
      if (!socket.writable || socket.destroyed) return;
      socket.write(clientErrorResponse(code, requestId, version, target));
      // Closes once the answer is flushed: the server's sockets are half-open by default, so
      // a bare end() would leave the client holding the connection.
      socket.destroySoon();
    };
    // The version the request named, when its headers were read; else the account's pin
    // (the same cached read as every request's), else the latest.
    const header = headersRead(socket)?.['patientcare-version'];
    if (db === undefined) {
      answer(namedVersion(header, apiVersions) ?? apiVersions[0] ?? '');
      return;
    }
    const version = earlyAnswerVersion(db, header, apiVersions);
    if (typeof version === 'string') answer(version);
    else {
      // Only when the cached pin is over a second old; the read never rejects.
      waiting.add(socket);
      void version.then(answer);
    }
  };
}
