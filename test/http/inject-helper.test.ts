import { describe, expect, it } from 'vitest';
import { ResponseChecker } from '../../tooling/fuzz/response-checker.js';
import * as table from '../fixtures/http/routes.js';

const checker = new ResponseChecker(table);
const headers = {
  'request-id': 'req_01JDD4E5F6G7H8J9K0M1N2P3QR',
  'ratelimit-limit': '25',
  'ratelimit-remaining': '24',
  'ratelimit-reset': '1',
  'patientcare-version': '2026-11-01',
  'content-type': 'application/json; charset=utf-8',
};
const widget = {
  id: 'wid_01JD7X5K8M9N2P3Q4R5S6T7V8W',
  object: 'widget',
  livemode: false,
  name: { family: 'A' },
};
const check = (
  method: string,
  url: string,
  status: number,
  body: unknown,
  h: Record<string, string> = headers,
) => checker.check(method, url, { status, headers: h, body, text: JSON.stringify(body) });
const errorBody = (requestId = headers['request-id']) => ({
  error: {
    type: 'invalid_request_error',
    code: 'route_missing',
    message: 'm',
    param: null,
    doc_url: 'http://127.0.0.1:4010/docs/errors#route_missing',
    request_id: requestId,
  },
});

describe('the shared response check', () => {
  it('passes a response the spec describes', () => {
    expect(() => check('GET', `/v1/widgets/${widget.id}`, 200, widget)).not.toThrow();
    expect(() => check('GET', '/v1/nowhere', 404, errorBody())).not.toThrow();
  });

  it('fails a body that does not match the schema for its status', () => {
    expect(() => check('GET', `/v1/widgets/${widget.id}`, 200, { ...widget, extra: 1 })).toThrow(
      /body invalid/,
    );
    expect(() => check('GET', '/v1/widgets', 200, widget)).toThrow(/body invalid/);
  });

  it('fails a status the operation does not list', () => {
    expect(() => check('GET', '/v1/widgets', 201, widget)).toThrow(/not listed/);
  });

  it('fails when a required header is missing or malformed', () => {
    const { 'ratelimit-reset': _gone, ...noReset } = headers;
    expect(() => check('GET', '/v1/widgets/x', 200, widget, noReset)).toThrow(/RateLimit-Reset/);
    expect(() =>
      check('GET', '/v1/widgets/x', 200, widget, { ...headers, 'request-id': 'abc' }),
    ).toThrow(/Request-Id/);
    expect(() => check('GET', '/v1/widgets', 429, errorBody())).toThrow(/Retry-After/);
  });

  it('fails an error body whose request_id is not the header', () => {
    expect(() =>
      check('GET', '/v1/nowhere', 404, errorBody('req_01JDD4E5F6G7H8J9K0M1N2P3QS')),
    ).toThrow(/request_id/);
  });

  it('prefers a static path over a parameter', () => {
    expect(checker.match('POST', '/v1/widgets/search')?.operationId).toBe('searchWidgets');
    expect(checker.match('POST', `/v1/widgets/${widget.id}`)?.operationId).toBe('renameWidget');
  });
});
