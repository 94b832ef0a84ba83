import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureApp, fixtureApp } from '../fixtures/http/app.js';
import { PHI_CANARY } from '../fixtures/http/handlers.js';

const lines: string[] = [];
const stream = { write: (line: string) => void lines.push(line) };
let t: FixtureApp;

beforeAll(async () => {
  t = await fixtureApp({ logger: { level: 'debug', stream } });
  const key = t.keys.secret.secret;
  // PHI in every place a client might put it: body, query string, path, headers.
  await t.request({
    method: 'POST',
    url: '/v1/widgets',
    key,
    body: { name: { family: PHI_CANARY } },
  });
  await t.request({
    method: 'POST',
    url: '/v1/widgets',
    key,
    body: { name: { family: PHI_CANARY }, x: 1 },
  });
  await t.request({
    method: 'POST',
    url: '/v1/widgets/search',
    key,
    body: { family_name: PHI_CANARY },
  });
  await t.request({ method: 'GET', url: `/v1/widgets?family=${PHI_CANARY}`, key });
  await t.request({ method: 'GET', url: `/v1/widgets/${PHI_CANARY}`, key });
  await t.request({ method: 'GET', url: `/v1/${PHI_CANARY}`, key });
  await t.request({ method: 'GET', url: '/v1/crash', key });
  await t.request({
    method: 'POST',
    url: '/v1/widgets',
    key,
    payload: `{"name":{"family":"${PHI_CANARY}"`,
    headers: { 'content-type': 'application/json' },
  });
  await t.request({ method: 'GET', url: '/v1/widgets', key: `sk_test_${PHI_CANARY}` });
});
afterAll(() => t.close());

const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('request logs', () => {
  it('never contain PHI, query strings or key secrets', () => {
    expect(lines.length).toBeGreaterThan(0);
    const all = lines.join('\n');
    expect(all).not.toContain(PHI_CANARY);
    expect(all).not.toContain(t.keys.secret.secret);
    expect(all).not.toContain('?family');
  });

  it('hold one line per request with method, route template, status, time and request id', () => {
    const completed = records().filter((r) => r.msg === 'request completed');
    expect(completed).toHaveLength(9);
    const first = completed[0]!;
    expect(first).toMatchObject({ method: 'POST', route: '/v1/widgets', status: 200 });
    expect(first.reqId).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(typeof first.responseTimeMs).toBe('number');
    // The path with an id is logged as its template.
    expect(completed.some((r) => r.route === '/v1/widgets/:id' && r.status === 400)).toBe(true);
    // Unknown routes have no template.
    expect(completed.some((r) => r.route === null && r.status === 404)).toBe(true);
  });

  it('logs an unexpected error with its stack, but without the request', () => {
    const errors = records().filter((r) => r.level === 50);
    expect(errors.length).toBeGreaterThan(0);
    expect(JSON.stringify(errors)).not.toContain('"body"');
  });
});
