/**
 * `npm run bench:ceiling`: how fast `GET /v1/patients?limit=10` could be before any of the
 * service's own per-request work, measured by adding the unavoidable parts one at a time to a
 * plain Fastify route (each variant in a process of its own, autocannon in this process):
 *
 * (a) bare: the list parsed once and serialised per request — the reference;
 * (b) the same list as ready JSON text with the service's response headers;
 * (c) (b) plus the service's logger (its pino options, buffered stdout-like destination) and
 *     one request-completed line, as `server/http/logging.ts` writes it;
 * (d) (c) plus the page read from a SQLite file through the service's repository
 *     (`listRecords(PATIENT, …, JSON_TEXT)`) and spliced with `listEnvelopeText`;
 * (d-pg) the same as (d) on PostgreSQL (node-postgres through the service's adapter, a fresh
 *     schema of the database given with `--pg`).
 *
 * (d) is what the service does minus authentication, validation, rate limit, audit, version
 * negotiation and the hooks, so (d) / (a) bounds what the full route can reach on this machine.
 *
 * Write ceilings (`POST /v1/patients`, (c)'s logger, see bench/support/ceiling-writes.ts): (e) / (e-pg)
 * one durable INSERT of a patient row per request; (f) / (f-pg) every row the service writes
 * for a create in one durable transaction. PostgreSQL variants run only with `--pg URL`.
 *
 * Variants alternate within each round; medians go to `bench/results/ceiling.md` (or --out).
 * Nothing is asserted.
 *
 *   npm run bench:ceiling [-- --rounds 3 --seconds 5 --connections 50 --pg URL --only a,d,d-pg --out FILE]
 */

import { type ChildProcess, fork } from 'node:child_process';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import { integerOption, parseOrExit } from '../tooling/cli/command.js';
import { type ScratchDatabase, scratchDatabase } from '../tooling/node/scratch-database.js';
import {
  checked,
  connectionsOption,
  outOption,
  roundsOption,
  secondsOption,
} from './support/options.js';
import { cpuModel, oneMinuteLoad, resultsFile, writeResults } from './support/report.js';
import { createRequest, insertPatients } from './support/seed.js';
import { median } from './support/stats.js';

const { values } = parseOrExit({
  name: 'npm run bench:ceiling --',
  prefix: 'bench:ceiling',
  summary:
    "How fast GET /v1/patients?limit=10 could be before the service's own per-request work: a plain Fastify route with the unavoidable parts added one at a time; medians to bench/results/ceiling.md.",
  options: {
    rounds: roundsOption(3),
    seconds: secondsOption(5),
    connections: connectionsOption(50),
    out: outOption('ceiling.md'),
    pg: {
      type: 'string',
      value: 'URL',
      description:
        'A PostgreSQL database for the -pg variants (each run uses a schema of its own).',
    },
    only: {
      type: 'string',
      value: 'LIST',
      description: 'Only these variants, comma-separated (e.g. a,d,d-pg,f-pg).',
    },
    variant: {
      type: 'string',
      value: 'NAME',
      description: 'Internal: serve one variant (child process).',
    },
    db: { type: 'string', value: 'URL', description: "Internal: a variant's database URL." },
  },
});
for (const name of ['rounds', 'seconds', 'connections'] as const) {
  checked('bench:ceiling', () => integerOption(name, values[name], { min: 1 }));
}

const VARIANTS = {
  a: 'bare Fastify, list serialised per request',
  b: '+ ready JSON text and the service’s response headers',
  c: '+ the service’s logger and one request line',
  d: '+ the page read from SQLite through the repository',
  'd-pg': '+ the page read from PostgreSQL through the repository',
  e: 'POST: one durable INSERT of a patient row (SQLite, group commit)',
  'e-pg': 'POST: one durable INSERT of a patient row (node-postgres, 1 round trip)',
  f: "POST: a create's rows in one durable transaction (SQLite)",
  'f-pg': "POST: a create's rows in one transaction (node-postgres, 1 round trip)",
} as const;
type Variant = keyof typeof VARIANTS;
const WRITES: ReadonlySet<Variant> = new Set(['e', 'e-pg', 'f', 'f-pg']);
const isPostgres = (variant: Variant) => variant.endsWith('-pg');

if (values.variant !== undefined) {
  await serveVariant(values.variant as Variant, String(values.db));
} else {
  await runBench();
}

/** One variant's server: listens on a free port and reports it, then its CPU time on request. */
async function serveVariant(variant: Variant, dbUrl: string): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const { default: pino } = await import('pino');
  const { openDb } = await import('../server/db/open.js');
  const { JSON_TEXT, listRecords } = await import('../server/repos/records.js');
  const { PATIENT } = await import('../server/resources/patient.js');
  const { listEnvelopeText } = await import('../server/domain/list.js');
  const { loggerOptions, logRequestCompleted } = await import('../server/http/logging.js');
  const db = await openDb(dbUrl);
  const page = await listRecords(PATIENT, db, { livemode: false, limit: 10 }, JSON_TEXT);
  const text: string = listEnvelopeText('/v1/patients', page);
  const parsed = JSON.parse(text) as unknown;
  const logs = pino.destination({ dest: '/dev/null', minLength: 4096, sync: false });
  const logged = variant !== 'a' && variant !== 'b';
  const logger = logged ? loggerOptions({ level: 'info', stream: logs }, 'info') : false;
  const { LogController } = await import('fastify');
  const app = Fastify({
    logger: logger as never,
    logController: new LogController({ disableRequestLogging: true }),
  });
  if (logged) {
    app.addHook('onResponse', (request, reply, done) => {
      logRequestCompleted(request, reply);
      done();
    });
  }
  app.get('/v1/patients', async (_request, reply) => {
    if (variant === 'a') return parsed;
    let body = text;
    if (variant === 'd' || variant === 'd-pg') {
      body = listEnvelopeText(
        '/v1/patients',
        await listRecords(PATIENT, db, { livemode: false }, JSON_TEXT),
      );
    }
    reply.header('Request-Id', 'req_01KAB0000000000000000000AA');
    reply.header('PatientCare-Version', '2026-11-01');
    reply.header('Cache-Control', 'no-store');
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('RateLimit-Limit', '1000000');
    reply.header('RateLimit-Remaining', '999999');
    reply.header('RateLimit-Reset', '1');
    reply.header('content-type', 'application/json; charset=utf-8');
    return reply.send(body);
  });
  if (WRITES.has(variant)) {
    const writes = await import('./support/ceiling-writes.js');
    let write: import('./support/ceiling-writes.js').WriteRoute;
    const whole = variant.startsWith('f');
    if (isPostgres(variant)) {
      // The adapter's pool (its size, user default and type parsers), queried directly.
      const { openPostgres } = await import('../server/db/postgres.js');
      write = writes.postgresWrite(openPostgres(dbUrl).pool, whole);
    } else {
      write = writes.sqliteWrite(db, whole);
    }
    app.post('/v1/patients', async (request, reply) => {
      const text = await write(request.body, String(request.headers['idempotency-key']));
      reply.header('content-type', 'application/json; charset=utf-8');
      return reply.send(text);
    });
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  let mark = process.cpuUsage();
  process.on('message', (message) => {
    if (message === 'start') mark = process.cpuUsage();
    if (message === 'stop') {
      const used = process.cpuUsage(mark);
      process.send?.({ cpuMs: (used.user + used.system) / 1000 });
    }
  });
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
}

interface Figure {
  rps: number;
  p99: number;
  cpuUsPerRequest: number;
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve) => child.once('message', (m) => resolve(m as T)));
}

async function measure(variant: Variant, dbUrl: string, seconds: number): Promise<Figure> {
  const child = fork(import.meta.filename, ['--variant', variant, '--db', dbUrl], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const { port } = await nextMessage<{ port: number }>(child);
    const connections = Number(values.connections);
    const options: autocannon.Options = WRITES.has(variant)
      ? {
          url: `http://127.0.0.1:${port}`,
          connections,
          requests: [createRequest({})],
        }
      : { url: `http://127.0.0.1:${port}/v1/patients?limit=10`, connections };
    await autocannon({ ...options, duration: 1 }); // warm-up
    child.send('start');
    const result = await autocannon({ ...options, duration: seconds });
    const cpu = nextMessage<{ cpuMs: number }>(child);
    child.send('stop');
    const { cpuMs } = await cpu;
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`variant ${variant} failed`);
    return {
      rps: result.requests.average,
      p99: result.latency.p99,
      cpuUsPerRequest: (cpuMs * 1000) / Math.max(1, result.requests.total),
    };
  } finally {
    child.kill();
  }
}

async function runBench(): Promise<void> {
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  const sqlite = await scratchDatabase('ceiling');
  let pg: ScratchDatabase | undefined;
  const variants = (Object.keys(VARIANTS) as Variant[]).filter(
    (v) =>
      (values.only === undefined || values.only.split(',').includes(v)) &&
      (!isPostgres(v) || values.pg !== undefined),
  );
  try {
    // Twelve patients shaped like the ones `bench:server` creates (a page of 10 is ~3 KB).
    await insertPatients(sqlite.url, 12);
    if (values.pg !== undefined) pg = await scratchDatabase('ceiling', values.pg);
    if (pg !== undefined) await insertPatients(pg.url, 12);
    const loadStart = oneMinuteLoad();
    const figures = new Map<Variant, Figure[]>();
    for (let round = 1; round <= rounds; round++) {
      for (const variant of variants) {
        const figure = await measure(variant, isPostgres(variant) ? pg!.url : sqlite.url, seconds);
        figures.set(variant, [...(figures.get(variant) ?? []), figure]);
        process.stdout.write(
          `round ${round} (${variant}): ${Math.round(figure.rps)} req/s, p99 ${figure.p99} ms, ${figure.cpuUsPerRequest.toFixed(1)} µs CPU/req\n`,
        );
      }
    }
    writeReport(figures, rounds, seconds, loadStart, oneMinuteLoad());
  } finally {
    await sqlite.drop();
    await pg?.drop();
  }
}

function writeReport(
  figures: Map<Variant, Figure[]>,
  rounds: number,
  seconds: number,
  loadStart: number,
  loadEnd: number,
): void {
  const bare = median((figures.get('a') ?? []).map((f) => f.rps));
  const row = (variant: Variant, share: boolean) => {
    const runs = figures.get(variant) ?? [];
    const rps = median(runs.map((f) => f.rps));
    const ofBare = share && bare > 0 ? `${((rps / bare) * 100).toFixed(0)}%` : '—';
    return `| (${variant}) ${VARIANTS[variant]} | ${Math.round(rps).toLocaleString('en-US')} | ${ofBare} | ${median(runs.map((f) => f.p99))} | ${median(runs.map((f) => f.cpuUsPerRequest)).toFixed(1)} |`;
  };
  const measured = (Object.keys(VARIANTS) as Variant[]).filter((v) => figures.has(v));
  const rows = measured.filter((v) => !WRITES.has(v)).map((v) => row(v, true));
  const writeRows = measured.filter((v) => WRITES.has(v)).map((v) => row(v, false));
  const out = values.out ?? resultsFile('ceiling.md');
  const report = `# Ceiling of the list route (bench/ceiling.ts)

Command: \`npm run bench:ceiling\` — autocannon in the bench process, ${values.connections}
connections, ${seconds} s per measurement after a 1 s warm-up, ${rounds} round(s) with the
variants alternating; medians. Each variant is a plain Fastify route in a process of its own,
answering the same ~3 KB list of 10 patients (reads). Machine: ${cpus().length} × ${cpuModel()}, Node ${process.version};
1-min load ${loadStart.toFixed(2)} at start, ${loadEnd.toFixed(2)} at end.

| variant | req/s | share of (a) | p99 ms | server CPU µs/req |
|---|---:|---:|---:|---:|
${rows.join('\n')}
${writeRows.join('\n')}

Writes: \`POST /v1/patients\` with the body \`bench:server\` sends and a fresh Idempotency-Key;
see \`bench/support/ceiling-writes.ts\` for what each writes. PostgreSQL variants use a fresh schema of
the database given with \`--pg\`, node-postgres with the service's pool size.

(d) is the service's GET without authentication, validation, rate limit, audit and its hooks:
its share of (a) bounds what \`GET /v1/patients\` can reach in \`bench:server\` on this machine.
`;
  writeResults(out, report);
}
