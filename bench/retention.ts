/**
 * `npm run bench:retention`: does purging a million old events stall writes? For each database
 * (SQLite in a temporary file; PostgreSQL in a fresh schema of the shared cluster, dropped
 * after), `--events` events of 31 to 60 days ago (each with a patient-sized body, every fifth
 * with a webhook delivery) are seeded in SQL, then the service (in this process, as the
 * server runs its own retention rounds) takes `POST /v1/patients` at a fixed rate from
 * autocannon in three phases:
 *
 *   before  `--seconds` without a purge;
 *   during  while one retention round (`runPurgeRound`, production batch size and pause)
 *           deletes the old events, up to `--max-seconds`;
 *   after   `--seconds` without a purge again.
 *
 * The baseline is the mean of before and after (paired around the purge, so a change in the
 * machine's load shows as a gap between them); the figure asked for is during p99 ÷ baseline
 * p99 (issue 31: within 2×). The load average is recorded with every phase. Bounded: fixed
 * rates and durations, 127.0.0.1 only. Results go to `bench/results/retention.md`; nothing is
 * asserted.
 *
 *   npm run bench:retention [-- --events 1000000 --rate 100 --seconds 15 --max-seconds 180
 *     --db sqlite|postgres|both]
 */

import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import { buildApp } from '../server/app.js';
import { openDb } from '../server/db/open.js';
import type { Db, Dialect } from '../server/db/types.js';
import { createKey } from '../server/keys/index.js';
import { runPurgeRound } from '../server/retention/purge-round.js';
import { choiceOption, exitOnFailure, integerOption, parseOrExit } from '../tooling/cli/command.js';
import { scratchDatabase } from '../tooling/node/scratch-database.js';
import { checked, secondsOption } from './support/options.js';
import { loadAverages, markdownTable, resultsFile, writeResults } from './support/report.js';
import { UNLIMITED } from './support/service.js';

const { values } = parseOrExit({
  name: 'npm run bench:retention --',
  prefix: 'bench:retention',
  summary:
    'POST /v1/patients latency while a retention round purges N old events, against before and after; results to bench/results/retention.md.',
  options: {
    events: { type: 'string', value: 'N', default: '1000000', description: 'Old events seeded.' },
    rate: { type: 'string', value: 'N', default: '100', description: 'POSTs per second.' },
    seconds: secondsOption(15, 'Length of the before and after phases.'),
    'max-seconds': {
      type: 'string',
      value: 'S',
      default: '180',
      description: 'Longest the during phase runs (the purge is stopped there).',
    },
    db: {
      type: 'string',
      value: 'WHICH',
      default: 'both',
      description: 'sqlite, postgres or both.',
    },
  },
});

const [EVENTS, RATE, SECONDS, MAX_SECONDS, WHICH] = checked(
  'bench:retention',
  () =>
    [
      integerOption('events', values.events, { min: 1 }),
      integerOption('rate', values.rate, { min: 1 }),
      integerOption('seconds', values.seconds, { min: 1 }),
      integerOption('max-seconds', values['max-seconds'], { min: 1 }),
      choiceOption('db', values.db, ['sqlite', 'postgres', 'both'] as const) ?? 'both',
    ] as const,
);
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://127.0.0.1:5432/test';
const DAY = 86_400;

interface Phase {
  name: string;
  requests: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  seconds: number;
  load: string;
}

interface Run {
  dialect: Dialect;
  seedSeconds: number;
  phases: Phase[];
  purged: { events: number; deliveries: number; seconds: number; finished: boolean };
}

const load = () => loadAverages(' ');

/** A patient-sized event body (about 600 bytes), the same text for every row. */
const BODY = JSON.stringify({
  object: 'event',
  type: 'patient.updated',
  api_version: '2026-11-01',
  livemode: false,
  data: {
    object: {
      object: 'patient',
      name: { family: 'Seeded', given: ['Old', 'Event'], text: 'Old Event Seeded' },
      birth_date: '1980-01-01',
      gender: 'unknown',
      email: 'seeded@example.org',
      phone: '+15555550100',
      address: { line: ['1 Main St'], city: 'Springfield', postal_code: '00000', country: 'US' },
      identifiers: [{ type: 'MR', system: 'https://clinic.example/mrn', value: 'MRN0' }],
      metadata: { source: 'bench' },
    },
    previous_attributes: { active: true },
  },
  request: { id: null, idempotency_key: null },
  pending_webhooks: 0,
});

/** Seeds `n` events 31–60 days before `nowSeconds` in SQL, every fifth with a delivery. */
async function seed(db: Db, n: number, nowSeconds: number): Promise<void> {
  const oldest = nowSeconds - 60 * DAY;
  const spread = 29 * DAY;
  await db.run(
    `INSERT INTO webhooks (id, livemode, created, updated, status, url, secret, enabled_events, data)
      VALUES ('wh_bench', 0, $1, $1, 'disabled', 'https://example.org/hook', 'whsec_bench', '["*"]', '{}')`,
    [oldest],
  );
  const series =
    db.dialect === 'postgres'
      ? 'SELECT i FROM generate_series(1, $1) AS s(i)'
      : 'WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $1) SELECT i FROM s';
  const pad = (expr: string) =>
    db.dialect === 'postgres' ? `lpad(${expr}::text, 22, '0')` : `printf('%022d', ${expr})`;
  await db.run(
    `INSERT INTO events (id, livemode, created, type, object_id, request_id, idempotency_key, data)
      SELECT 'evt_0OLD' || ${pad('i')}, 0, $2 + (CAST(i AS BIGINT) * $3) / $1, 'patient.updated',
        'pat_0OLD' || ${pad('i')}, NULL, NULL, $4
      FROM (${series}) AS g`,
    [n, oldest, spread, BODY],
  );
  await db.run(
    `INSERT INTO webhook_deliveries (id, event_id, webhook_id, livemode, status, attempts,
        next_attempt_at, created_at, updated_at)
      SELECT 'whd_0OLD' || ${pad('i')}, 'evt_0OLD' || ${pad('i')}, 'wh_bench', 0, 'succeeded', 1,
        NULL, ($2 + (CAST(i AS BIGINT) * $3) / $1) * 1000, ($2 + (CAST(i AS BIGINT) * $3) / $1) * 1000
      FROM (${series}) AS g WHERE i % 5 = 0`,
    [n, oldest, spread],
  );
  if (db.dialect === 'postgres') await db.run('ANALYZE');
}

async function phase(
  name: string,
  url: string,
  secret: string,
  seconds: number,
  stop?: Promise<unknown>,
): Promise<Phase> {
  const started = Date.now();
  const instance = autocannon({
    url: `${url}/v1/patients`,
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: { family: 'Bench', given: ['Retention'] } }),
    connections: 4,
    overallRate: RATE,
    duration: seconds,
  });
  // The during phase ends with the purge (or at its cap).
  void stop?.then(() => (instance as unknown as { stop(): void }).stop());
  const result = await instance;
  const figure: Phase = {
    name,
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    seconds: (Date.now() - started) / 1000,
    load: load(),
  };
  process.stdout.write(
    `  ${name}: ${figure.requests} POSTs in ${figure.seconds.toFixed(1)} s, p50 ${figure.p50} ms, p99 ${figure.p99} ms, max ${figure.max} ms, non-2xx ${figure.non2xx}, errors ${figure.errors}, load ${figure.load}\n`,
  );
  return figure;
}

/** A scratch database of `dialect`, open. */
async function openDatabase(dialect: Dialect): Promise<{ db: Db; dispose: () => Promise<void> }> {
  const scratch = await scratchDatabase(
    'bench_retention',
    dialect === 'postgres' ? POSTGRES_URL : undefined,
  );
  const db = await openDb(scratch.url);
  return {
    db,
    dispose: async () => {
      await db.close();
      await scratch.drop();
    },
  };
}

async function runOne(dialect: Dialect): Promise<Run> {
  process.stdout.write(`${dialect}: seeding ${EVENTS.toLocaleString('en')} old events…\n`);
  const { db, dispose } = await openDatabase(dialect);
  try {
    const nowMs = Date.now();
    const seeding = Date.now();
    await seed(db, EVENTS, Math.floor(nowMs / 1000));
    const seedSeconds = (Date.now() - seeding) / 1000;
    process.stdout.write(`  seeded in ${seedSeconds.toFixed(1)} s, load ${load()}\n`);
    const app = await buildApp({
      db,
      audit: null,
      config: { rateLimits: { testRps: Number(UNLIMITED), liveRps: Number(UNLIMITED) } },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const { secret } = await createKey(db, { kind: 'secret', livemode: false });
    try {
      // A short warm-up, so the first phase does not pay for JIT and statement caches.
      await phase('warm-up', url, secret, 3);
      const before = await phase('before', url, secret, SECONDS);
      const stop = new AbortController();
      const purgeStarted = Date.now();
      const purge = runPurgeRound(db, {
        nowMs: Date.now(),
        bucketIdleMs: 3_600_000,
        signal: stop.signal,
      });
      const cap = setTimeout(() => stop.abort(), MAX_SECONDS * 1000);
      const during = await phase('during', url, secret, MAX_SECONDS, purge);
      const result = await purge;
      clearTimeout(cap);
      const purgeSeconds = (Date.now() - purgeStarted) / 1000;
      const left = await db.get<{ n: number }>(
        'SELECT COUNT(*) AS n FROM events WHERE created < $1',
        [Math.floor(nowMs / 1000) - 30 * DAY],
      );
      const purged = {
        events: result.ran ? result.events : 0,
        deliveries: result.ran ? result.deliveries : 0,
        seconds: purgeSeconds,
        finished: Number(left?.n ?? 0) === 0,
      };
      process.stdout.write(
        `  purge: ${purged.events} events and ${purged.deliveries} deliveries in ${purgeSeconds.toFixed(1)} s${purged.finished ? '' : ' (stopped at the cap)'}\n`,
      );
      const after = await phase('after', url, secret, SECONDS);
      return { dialect, seedSeconds, phases: [before, during, after], purged };
    } finally {
      await app.close();
    }
  } finally {
    await dispose();
  }
}

function report(runs: Run[]): string {
  const lines = [
    '# Retention: POST latency during a purge of old events',
    '',
    `\`npm run bench:retention -- --events ${EVENTS} --rate ${RATE} --seconds ${SECONDS} --max-seconds ${MAX_SECONDS} --db ${WHICH}\`, ${new Date().toISOString()}, ${cpus().length} cores (shared machine; load averages 1/5/15 min after each phase).`,
    '',
    `${EVENTS.toLocaleString('en')} events of 31–60 days ago (≈600-byte bodies, every fifth with a delivery) seeded in SQL; \`POST /v1/patients\` at ${RATE}/s (autocannon, 4 connections) before, during and after one retention round (batches of 500, each followed by a pause as long as it took, at least 5 ms) in the service's process. Baseline p99 = mean of before and after.`,
    '',
    markdownTable(
      [
        'database',
        'phase',
        'POSTs',
        'p50 ms',
        'p99 ms',
        'max ms',
        'non-2xx',
        'errors',
        'seconds',
        'load',
      ],
      runs.flatMap((run) =>
        run.phases.map((p) => [
          run.dialect,
          p.name,
          p.requests,
          p.p50,
          p.p99,
          p.max,
          p.non2xx,
          p.errors,
          p.seconds.toFixed(1),
          p.load,
        ]),
      ),
    ),
  ];
  lines.push('', '| database | seeded in | purged | purge time | during p99 ÷ baseline p99 |');
  lines.push('|---|---|---|---|---|');
  for (const run of runs) {
    const [before, during, after] = run.phases as [Phase, Phase, Phase];
    const baseline = (before.p99 + after.p99) / 2;
    lines.push(
      `| ${run.dialect} | ${run.seedSeconds.toFixed(1)} s | ${run.purged.events.toLocaleString('en')} events, ${run.purged.deliveries.toLocaleString('en')} deliveries${run.purged.finished ? '' : ' (stopped at the cap)'} | ${run.purged.seconds.toFixed(1)} s | ${(during.p99 / baseline).toFixed(2)}× (${during.p99} vs ${baseline.toFixed(1)} ms) |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const dialects: Dialect[] = WHICH === 'both' ? ['sqlite', 'postgres'] : [WHICH];
  const runs: Run[] = [];
  for (const dialect of dialects) runs.push(await runOne(dialect));
  const text = report(runs);
  const out = resultsFile('retention.md');
  writeResults(out, text);
  process.stdout.write(`\nwritten to ${out}\n`);
}

main().catch(exitOnFailure('bench:retention'));
