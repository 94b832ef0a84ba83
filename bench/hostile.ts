/**
 * `npm run bench:hostile`: what the costliest bodies cost the service, and whether its memory
 * settles after them (issue 42, docs/design.md#validation-cost). The service is the build
 * `npm start` runs (`build/server/main.js`, its V8 flags and `MALLOC_ARENA_MAX`), in its own
 * process on 127.0.0.1, on a scratch database. Two parts:
 *
 *   worst   every worst body of every operation of every version (`tooling/fuzz/worst-bodies.ts`
 *           at the full body limit), one at a time; prints the ten slowest answers and the
 *           slowest per operation (wall time at the client).
 *   memory  `--bodies` malformed and oversized bodies (up to 1 MiB and just over it: broken
 *           JSON, bytes that are not UTF-8, 100,000 `scopes`, 900 KB names, 74,000 unknown
 *           keys, nesting 440,000 deep, 1.1 MiB), `--connections` at a time; the service's
 *           RSS (`/proc/PID/status`) before, at its peak, and each second after the last body
 *           until it has not fallen for `--settle` seconds.
 *
 * Results go to `bench/results/hostile.md` (or `--out`); nothing is asserted.
 *
 *   npm run bench:hostile [-- --part worst|memory|both --bodies 3000 --connections 4
 *     --settle 10 --db sqlite|postgres --out FILE]
 */
import { readFileSync } from 'node:fs';
import { CURRENT_API_VERSION, DEFAULT_HTTP_CONFIG } from '../server/config.js';
import { openDb } from '../server/db/open.js';
import { createKey } from '../server/keys/index.js';
import { exitOnFailure, integerOption, parseOrExit, UsageError } from '../tooling/cli/command.js';
import {
  malformedBodies,
  servedTables,
  worstOperations,
  worstRequests,
} from '../tooling/fuzz/worst-bodies.js';
import { scratchDatabase } from '../tooling/node/scratch-database.js';
import { checked } from './support/options.js';
import {
  loadAverages,
  machine,
  markdownTable,
  resultsFile,
  writeResults,
} from './support/report.js';
import { buildService, type RunningService, startService } from './support/service.js';

const { values } = parseOrExit({
  name: 'npm run bench:hostile --',
  prefix: 'bench:hostile',
  summary:
    'The slowest worst bodies per operation, and the RSS after thousands of malformed bodies; to bench/results/hostile.md.',
  options: {
    part: { type: 'string', value: 'P', default: 'both', description: 'worst, memory or both.' },
    bodies: { type: 'string', value: 'N', default: '3000', description: 'Malformed bodies sent.' },
    connections: { type: 'string', value: 'N', default: '4', description: 'At a time.' },
    settle: {
      type: 'string',
      value: 'S',
      default: '10',
      description: 'Seconds without a fall in RSS that end the watch.',
    },
    db: { type: 'string', value: 'D', default: 'sqlite', description: 'sqlite or postgres.' },
    out: {
      type: 'string',
      value: 'FILE',
      description: 'Results file (default bench/results/hostile.md).',
    },
  },
});

const [BODIES, CONNECTIONS, SETTLE] = checked('bench:hostile', () => [
  integerOption('bodies', values.bodies, { min: 1 }),
  integerOption('connections', values.connections, { min: 1 }),
  integerOption('settle', values.settle, { min: 1 }),
]);
const [PART, DB] = checked('bench:hostile', () => {
  const part = values.part ?? 'both';
  const db = values.db ?? 'sqlite';
  if (!['worst', 'memory', 'both'].includes(part)) {
    throw new UsageError(`--part must be worst, memory or both, got "${part}"`);
  }
  if (db !== 'sqlite' && db !== 'postgres') {
    throw new UsageError(`--db must be sqlite or postgres, got "${db}"`);
  }
  return [part, db] as const;
});
const OUT = values.out ?? resultsFile('hostile.md');
const LIMIT = DEFAULT_HTTP_CONFIG.bodyLimit;

/** The service's resident set, in MB, from `/proc`. */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

async function send(
  base: string,
  secret: string,
  r: {
    method: string;
    url: string;
    contentType: string;
    payload: string | Buffer;
    version?: string;
  },
): Promise<{ status: number; ms: number }> {
  const start = performance.now();
  try {
    const res = await fetch(`${base}${r.url}`, {
      method: r.method,
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': r.contentType,
        ...(r.version ? { 'patientcare-version': r.version } : {}),
      },
      body: r.payload,
    });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - start };
  } catch {
    // The service may close the connection on a body over the limit before reading it all.
    return { status: 0, ms: performance.now() - start };
  }
}

async function worstPart(base: string, keys: Record<'secret' | 'publishable', string>) {
  const rows: {
    version: string;
    operationId: string;
    label: string;
    status: number;
    ms: number;
    kb: number;
  }[] = [];
  for (const op of worstOperations(await servedTables(CURRENT_API_VERSION))) {
    for (const r of worstRequests(op.route, op.registry, { bodyLimit: LIMIT })) {
      const answer = await send(base, keys[r.key], { ...r, version: op.version });
      rows.push({
        version: op.version,
        operationId: r.operationId,
        label: r.label,
        ...answer,
        kb: r.payload.length / 1024,
      });
    }
  }
  const slowest = [...rows].sort((a, b) => b.ms - a.ms);
  const perOperation = new Map<string, (typeof rows)[number]>();
  for (const row of slowest) {
    const id = `${row.version} ${row.operationId}`;
    if (!perOperation.has(id)) perOperation.set(id, row);
  }
  const fmt = (r: (typeof rows)[number]) => [
    r.version,
    r.operationId,
    r.label,
    r.status,
    r.kb.toFixed(0),
    r.ms.toFixed(0),
  ];
  const headers = ['version', 'operation', 'body', 'status', 'KiB', 'ms'];
  const align = ['left', 'left', 'left', 'right', 'right', 'right'] as const;
  return [
    `### Worst bodies (${rows.length} requests, one at a time; load ${loadAverages()})`,
    '',
    'The ten slowest:',
    '',
    markdownTable(headers, slowest.slice(0, 10).map(fmt), align),
    '',
    'The slowest per operation:',
    '',
    markdownTable(headers, [...perOperation.values()].map(fmt), align),
    '',
    `5xx answers: ${rows.filter((r) => r.status >= 500).length}.`,
  ].join('\n');
}

async function memoryPart(service: RunningService, secret: string, patient: string) {
  const pid = service.child.pid as number;
  const before = rssMb(pid);
  const bodies = malformedBodies(patient, LIMIT);
  const statuses = new Map<string, number>();
  let peak = before;
  let sent = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 100);
  const worker = async () => {
    while (sent < BODIES) {
      const body = bodies[sent++ % bodies.length]!;
      const { status } = await send(service.base, secret, { method: 'POST', ...body });
      const id = `${body.label}: ${status}`;
      statuses.set(id, (statuses.get(id) ?? 0) + 1);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const atEnd = rssMb(pid);
  const after: number[] = [atEnd];
  let lowest = atEnd;
  let still = 0;
  while (still < SETTLE && after.length < 120) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = rssMb(pid);
    after.push(now);
    if (now < lowest - 1) {
      lowest = now;
      still = 0;
    } else still++;
  }
  return [
    `### Memory after ${BODIES} malformed bodies (${CONNECTIONS} at a time, ${seconds.toFixed(0)} s; load ${loadAverages()})`,
    '',
    markdownTable(
      ['RSS', 'MB'],
      [
        ['before', before.toFixed(0)],
        ['peak while sending', peak.toFixed(0)],
        ['at the last answer', atEnd.toFixed(0)],
        [`lowest in ${after.length - 1} s after`, Math.min(...after).toFixed(0)],
        ['last', (after.at(-1) as number).toFixed(0)],
      ],
      ['left', 'right'],
    ),
    '',
    `Each second after: ${after.map((mb) => mb.toFixed(0)).join(', ')} MB.`,
    '',
    `Answers: ${[...statuses].map(([id, n]) => `${id} ×${n}`).join('; ')}.`,
  ].join('\n');
}

async function run(): Promise<void> {
  const database = await scratchDatabase(
    'bench_hostile',
    DB === 'postgres'
      ? (process.env.TEST_DATABASE_URL ?? 'postgres://127.0.0.1:5432/test')
      : undefined,
  );
  let service: RunningService | undefined;
  try {
    const db = await openDb(database.url);
    const secret = (await createKey(db, { kind: 'secret', livemode: false })).secret;
    const publishable = (await createKey(db, { kind: 'publishable', livemode: false })).secret;
    await db.close();
    buildService();
    service = await startService({ databaseUrl: database.url, secret });
    const created = await fetch(`${service.base}/v1/patients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: { family: 'Bench' }, birth_date: '1970-01-01' }),
    });
    const patient = ((await created.json()) as { id: string }).id;
    const sections = [
      '# bench:hostile',
      '',
      `${machine()}; ${DB}; \`npm run bench:hostile -- --part ${PART} --bodies ${BODIES} --connections ${CONNECTIONS} --settle ${SETTLE} --db ${DB}\``,
      '',
    ];
    if (PART !== 'worst') sections.push(await memoryPart(service, secret, patient), '');
    if (PART !== 'memory')
      sections.push(await worstPart(service.base, { secret, publishable }), '');
    writeResults(OUT, sections.join('\n'));
  } finally {
    await service?.stop();
    await database.drop();
  }
}

await run().catch(exitOnFailure('bench:hostile'));
