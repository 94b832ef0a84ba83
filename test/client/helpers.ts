/**
 * Test doubles for the client: an injected `fetch` that records what was sent and answers from a
 * script, and a `sleep` that records waits instead of waiting. No module mocks.
 */

import type { ClientOptions } from '../../client/index.js';
import { createPatientCareClient } from '../fixtures/client/out/client.js';

export interface SentRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

export type Answer = Response | Error | ((request: SentRequest) => Response | Error);

/** A `fetch` answering the n-th call with `answers[n]` (the last one repeats). */
export function scriptedFetch(...answers: Answer[]) {
  const sent: SentRequest[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const record: SentRequest = {
      method: request.method,
      url: new URL(request.url),
      headers: new Headers(request.headers),
      body: await request.text(),
    };
    sent.push(record);
    const answer = answers[Math.min(sent.length - 1, answers.length - 1)];
    const result = typeof answer === 'function' ? answer(record) : answer;
    if (result === undefined) throw new Error('no scripted answer');
    if (result instanceof Error) throw result;
    // A clone, so a scripted answer can be given more than once.
    return result.clone();
  };
  return { fetch, sent };
}

/** A JSON response. */
export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

/** The spec's error envelope. */
export function envelope(type: string, code: string) {
  return {
    error: { type, code, message: 'test', param: null, doc_url: null, request_id: 'req_1' },
  };
}

/** A client on the fixture spec with scripted fetch, recorded sleeps and fixed jitter. */
export function testClient(answers: Answer[], options: Partial<ClientOptions> = {}) {
  const { fetch, sent } = scriptedFetch(...answers);
  const sleeps: number[] = [];
  const client = createPatientCareClient({
    apiKey: 'sk_test_123',
    baseUrl: 'http://127.0.0.1:4010',
    fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  return { client, sent, sleeps };
}

/** A patient as the fixture spec returns it. */
export function patient(n: number) {
  const id = `pat_${String(n).padStart(26, '0')}`;
  return {
    id,
    object: 'patient',
    livemode: false,
    created: 1_700_000_000 + n,
    name: { family: 'F' },
    active: true,
  };
}
