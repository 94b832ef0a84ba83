import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ERROR_CODES,
  errorEnvelope,
  errorSpec,
  isApiError,
} from '../../server/errors.js';
import { toApiError } from '../../server/http/error-handler.js';

describe('error registry', () => {
  it('gives every code the status and type of the spec’s error table', () => {
    const want: Record<string, [number, string]> = {
      parameter_missing: [400, 'invalid_request_error'],
      parameter_unknown: [400, 'invalid_request_error'],
      parameter_invalid: [400, 'invalid_request_error'],
      parameters_exclusive: [400, 'invalid_request_error'],
      status_transition_invalid: [400, 'invalid_request_error'],
      body_invalid_json: [400, 'invalid_request_error'],
      token_invalid: [400, 'invalid_request_error'],
      request_malformed: [400, 'invalid_request_error'],
      idempotency_key_reused: [400, 'idempotency_error'],
      api_key_missing: [401, 'authentication_error'],
      api_key_invalid: [401, 'authentication_error'],
      api_key_expired: [401, 'authentication_error'],
      insufficient_scope: [403, 'permission_error'],
      secret_key_required: [403, 'permission_error'],
      ip_not_allowed: [403, 'permission_error'],
      livemode_mismatch: [403, 'permission_error'],
      resource_missing: [404, 'invalid_request_error'],
      route_missing: [404, 'invalid_request_error'],
      request_timeout: [408, 'invalid_request_error'],
      idempotency_key_in_use: [409, 'invalid_request_error'],
      resource_already_exists: [409, 'invalid_request_error'],
      body_too_large: [413, 'invalid_request_error'],
      content_type_unsupported: [415, 'invalid_request_error'],
      headers_too_large: [431, 'invalid_request_error'],
      rate_limited: [429, 'rate_limit_error'],
      internal: [500, 'api_error'],
      service_unavailable: [503, 'api_error'],
    };
    expect([...ERROR_CODES].sort()).toEqual(Object.keys(want).sort());
    for (const code of ERROR_CODES) {
      const spec = errorSpec(code);
      expect([spec.status, spec.type], code).toEqual(want[code]);
    }
  });

  it('builds the envelope with param, doc_url and request_id', () => {
    const body = errorEnvelope(
      new ApiError('parameter_missing', { param: 'name[family]' }),
      'req_X',
    );
    expect(body).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'parameter_missing',
        message: errorSpec('parameter_missing').message,
        param: 'name[family]',
        doc_url: 'http://127.0.0.1:4010/docs/errors#parameter_missing',
        request_id: 'req_X',
      },
    });
  });

  it('turns anything unexpected into internal, without its message', () => {
    const body = errorEnvelope(new Error('SELECT secret FROM patients'), 'req_Y');
    expect(body.error.code).toBe('internal');
    expect(body.error.type).toBe('api_error');
    expect(JSON.stringify(body)).not.toContain('SELECT');
    // Even an ApiError('internal') with a custom message says nothing more.
    const custom = errorEnvelope(new ApiError('internal', { message: 'db down at 10.0.0.1' }), 'r');
    expect(custom.error.message).not.toContain('10.0.0.1');
  });

  it('caps messages at the 1000 characters the spec allows', () => {
    const long = errorEnvelope(
      new ApiError('parameter_invalid', { message: 'x'.repeat(5000) }),
      'r',
    );
    expect(long.error.message).toHaveLength(1000);
  });

  it('recognises ApiErrors and maps Fastify errors to codes', () => {
    expect(isApiError(new ApiError('route_missing'))).toBe(true);
    expect(isApiError(new Error('x'))).toBe(false);
    const fastify = (code: string, statusCode: number) =>
      Object.assign(new Error('fastify'), { code, statusCode });
    expect(toApiError(fastify('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415)).code).toBe(
      'content_type_unsupported',
    );
    expect(toApiError(fastify('FST_ERR_CTP_BODY_TOO_LARGE', 413)).code).toBe('body_too_large');
    expect(toApiError(fastify('FST_ERR_CTP_EMPTY_JSON_BODY', 400)).code).toBe('body_invalid_json');
    expect(toApiError(fastify('FST_ERR_SOMETHING_NEW', 404)).code).toBe('route_missing');
    expect(toApiError(Object.assign(new SyntaxError('x'), { statusCode: 400 })).code).toBe(
      'body_invalid_json',
    );
    expect(toApiError(fastify('FST_ERR_WHATEVER', 500)).code).toBe('internal');
  });
});
