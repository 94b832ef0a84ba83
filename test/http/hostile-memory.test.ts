/**
 * Issue 42, item 4: after 1,500 malformed and oversized bodies over real sockets (the seven
 * kinds of `malformedBodies`, one round in seven at the 1 MiB limit, the rest at 64 KiB), the
 * heap that survives a full garbage collection is back at its level before them: nothing
 * gathers refused bodies (a cache without a bound, a list of errors kept per request). The
 * first round of every kind is sent before the level is taken, so what is built once (each
 * version's validators) counts in it.
 *
 * Integration tier: about 300 MB sent through the service in this process (a minute or more
 * on a busy two-core machine). `--expose-gc` is turned on from here (`v8.setFlagsFromString`);
 * the RSS side of the question is `npm run bench:hostile -- --part memory` (BENCHMARKS.md).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_HTTP_CONFIG } from '../../server/config.js';
import { type MalformedBody, malformedBodies } from '../../tooling/fuzz/worst-bodies.js';
import type { TestApp } from '../support/app.js';
import { listeningAppWithPatient } from './support/listening-app.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Retained bytes allowed over the level before: rate-limit and key cache entries, JIT code. */
const SLACK_MB = 8;
const BODIES = 1_500;

let t: TestApp;
let base: string;
let key: string;
let patient: string;

beforeAll(async () => {
  ({ t, base, key, patient } = await listeningAppWithPatient());
});
afterAll(() => t.close());

async function send(body: MalformedBody): Promise<number> {
  try {
    const res = await fetch(`${base}${body.url}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': body.contentType },
      body: body.payload,
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    // A body over the limit: the service may close the connection before reading it all.
    return 0;
  }
}

/** The heap that survives full collections, in MB. */
function retainedMb(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

it(`${BODIES} malformed bodies leave the retained heap at its level`, async () => {
  const large = malformedBodies(patient, DEFAULT_HTTP_CONFIG.bodyLimit);
  const small = malformedBodies(patient, 64 * 1024);
  // Every kind once first: what is built on first use (validators, caches) is counted before.
  for (const body of [...large, ...small]) await send(body);
  const before = retainedMb();
  const statuses: number[] = [];
  let sent = 0;
  const worker = async () => {
    while (sent < BODIES) {
      const n = sent++;
      const kinds = Math.floor(n / large.length) % 7 === 0 ? large : small;
      statuses.push(await send(kinds[n % kinds.length] as MalformedBody));
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  const after = retainedMb();
  expect(statuses).toHaveLength(BODIES);
  expect(statuses.filter((s) => s >= 500)).toEqual([]);
  expect(statuses.filter((s) => s === 400).length).toBeGreaterThan(BODIES / 2);
  expect(after - before).toBeLessThan(SLACK_MB);
});
