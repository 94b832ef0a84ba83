/**
 * `npm run bench:versions`: what dated versions cost per request, in one process and one run:
 *
 * - today: the service as released before versions were real (commit 6cc14ed, extracted to a
 *   temporary folder and loaded beside this one), no version header;
 * - latest: this service, `PatientCare-Version: 2026-12-01` (handlers' own shape: the request
 *   pays the version choice and the date-time conversion of appointments);
 * - oldest: this service pinned to `2026-11-01` (request migrated up, response down).
 *
 * Each variant answers `GET /v1/appointments/{id}` and `POST /v1/appointments` through
 * `app.inject()` on its own in-memory SQLite database, so the figure is the service's own CPU
 * cost per request without sockets. Variants alternate within every round (the order rotates),
 * so all see the same machine load; medians of the rounds go to bench/results/versions.md.
 * Target: latest ≤ 3% over today. Nothing is asserted.
 *
 *   npm run bench:versions [-- --rounds 15 --requests 400 --out FILE]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { integerOption, parseOrExit } from '../tooling/cli/command.js';

const RELEASED = '6cc14ed';
const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');

const { values } = parseOrExit({
  name: 'npm run bench:versions --',
  prefix: 'bench:versions',
  summary:
    'Per-request cost of the oldest pinned version vs the latest vs the service before versions (6cc14ed), GET and POST, one process; medians to bench/results/versions.md.',
  options: {
    rounds: {
      type: 'string',
      value: 'N',
      default: '15',
      description: 'Rounds (medians are reported).',
    },
    requests: {
      type: 'string',
      value: 'N',
      default: '400',
      description: 'Requests per variant and round.',
    },
    out: {
      type: 'string',
      value: 'FILE',
      description: 'Results file (default bench/results/versions.md).',
    },
  },
});
const rounds = integerOption('rounds', values.rounds, { min: 1 });
const requests = integerOption('requests', values.requests, { min: 10 });
const out = values.out ?? join(ROOT, 'bench/results/versions.md');

type Inject = (request: {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  payload?: string;
}) => Promise<{
  statusCode: number;
}>;

interface Variant {
  name: 'today' | 'latest' | 'oldest';
  inject: Inject;
  headers: Record<string, string>;
  get: string;
  postBody: string;
  close: () => Promise<void>;
}

/** Builds one service from `root` (this tree or the released one) on an in-memory database. */
async function service(root: string, version: string | null, times: 'seconds' | 'date-time') {
  const { buildApp } = await import(join(root, 'server/app.ts'));
  const { openDb } = await import(join(root, 'server/db/open.ts'));
  const { ensureInitialTestKey } = await import(join(root, 'server/keys/index.ts'));
  const db = await openDb('sqlite::memory:');
  const secret: string = await ensureInitialTestKey(db);
  const app = await buildApp({
    db,
    config: { rateLimits: { liveRps: 1e9, testRps: 1e9, anonymousRps: 1e9 } },
  });
  const headers: Record<string, string> = {
    authorization: `Bearer ${secret}`,
    'content-type': 'application/json',
    ...(version === null ? {} : { 'patientcare-version': version }),
  };
  const inject: Inject = (request) => app.inject(request);
  const patient = await inject({
    method: 'POST',
    url: '/v1/patients',
    headers,
    payload: JSON.stringify({ name: { family: 'Bench' } }),
  });
  const patientId = JSON.parse((patient as unknown as { body: string }).body).id as string;
  const [start, end] =
    times === 'seconds'
      ? [1793782800, 1793784600]
      : ['2026-11-04T09:00:00Z', '2026-11-04T09:30:00Z'];
  const postBody = JSON.stringify({
    patient: patientId,
    practitioner: 'Dr Bench',
    start,
    end,
    confirm: true,
  });
  const made = await inject({
    method: 'POST',
    url: '/v1/appointments',
    headers,
    payload: postBody,
  });
  if (made.statusCode !== 200) throw new Error(`set-up failed in ${root}: ${made.statusCode}`);
  const id = JSON.parse((made as unknown as { body: string }).body).id as string;
  return {
    inject,
    headers,
    get: `/v1/appointments/${id}`,
    postBody,
    close: async () => {
      await app.close();
      await db.close();
    },
  };
}

/**
 * CPU microseconds (user + system of this process) per request of `count` sequential
 * requests. CPU time, not wall time: on a machine shared with other work, wall time per
 * request varied 10× between rounds (104–1,616 µs for one variant in one run), CPU time is
 * what the service itself spends.
 */
async function cost(variant: Variant, method: 'GET' | 'POST', count: number): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const res =
      method === 'GET'
        ? await variant.inject({ method, url: variant.get, headers: variant.headers })
        : await variant.inject({
            method,
            url: '/v1/appointments',
            headers: variant.headers,
            payload: variant.postBody,
          });
    if (res.statusCode !== 200)
      throw new Error(`${variant.name} ${method} answered ${res.statusCode}`);
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / count;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const released = mkdtempSync(join(tmpdir(), 'bench-versions-'));
try {
  execFileSync('sh', ['-c', `git -C '${ROOT}' archive ${RELEASED} | tar -x -C '${released}'`]);
  symlinkSync(join(ROOT, 'node_modules'), join(released, 'node_modules'));
  const variants: Variant[] = [
    { name: 'today', ...(await service(released, null, 'seconds')) },
    { name: 'latest', ...(await service(ROOT, '2026-12-01', 'date-time')) },
    { name: 'oldest', ...(await service(ROOT, '2026-11-01', 'seconds')) },
  ];
  const load = loadavg();
  const samples = new Map<string, number[]>();
  // Warm-up: JIT and caches of every variant before anything is counted.
  for (const v of variants) for (const m of ['GET', 'POST'] as const) await cost(v, m, requests);
  for (let round = 0; round < rounds; round++) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
    for (const method of ['GET', 'POST'] as const) {
      for (const v of order) {
        const key = `${v.name} ${method}`;
        samples.set(key, [...(samples.get(key) ?? []), await cost(v, method, requests)]);
      }
    }
  }
  for (const v of variants) await v.close();
  const m = (key: string) => median(samples.get(key)!);
  const least = (key: string) => Math.min(...samples.get(key)!);
  const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)}%`;
  const rows = (['GET', 'POST'] as const).map((method) => {
    const today = m(`today ${method}`);
    const latest = m(`latest ${method}`);
    const oldest = m(`oldest ${method}`);
    const lows = ['today', 'latest', 'oldest'].map((v) => least(`${v} ${method}`));
    return `| ${method === 'GET' ? 'GET /v1/appointments/{id}' : 'POST /v1/appointments'} | ${today.toFixed(1)} | ${latest.toFixed(1)} (${pct(latest, today)}) | ${oldest.toFixed(1)} (${pct(oldest, latest)} vs latest) | ${latest <= today * 1.03 ? 'met' : '**missed**'} | ${lows.map((x) => x.toFixed(0)).join(' / ')} (${pct(lows[1]!, lows[0]!)}) |`;
  });
  const text = `# Cost of dated versions per request (bench/versions.ts)

Command: \`npm run bench:versions -- --rounds ${rounds} --requests ${requests}\`. One process, \`app.inject()\`
(no sockets), each variant on its own in-memory SQLite database with one key, one patient and
one appointment; ${requests} sequential requests per variant, method and round, the three
variants alternating inside each of ${rounds} rounds (rotating order) after one warm-up pass;
figures are medians of the rounds in CPU µs (user + system of the process) per request. *today* is the service at ${RELEASED} (before
versions were real) with no header; *latest* is this tree with \`PatientCare-Version: 2026-12-01\`;
*oldest* is this tree pinned to \`2026-11-01\` (request migrated up, response down). POST
creates a booked appointment (no Idempotency-Key).

Machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'} (shared with other work); 1/5/15-min load at start
${load.map((x) => x.toFixed(2)).join(' / ')}, at end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ')}. Node ${process.version}.

| request | today CPU µs | latest CPU µs (vs today) | oldest CPU µs (vs latest) | latest ≤ today + 3% (medians) | least of the rounds: today / latest / oldest (latest vs today) |
|---|---:|---:|---:|---|---|
${rows.join('\n')}

Every round (CPU µs per request):

| variant | ${Array.from({ length: rounds }, (_, i) => i + 1).join(' | ')} |
|---|${'---:|'.repeat(rounds)}
${[...samples].map(([k, xs]) => `| ${k} | ${xs.map((x) => x.toFixed(0)).join(' | ')} |`).join('\n')}
`;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  console.log(text);
} finally {
  rmSync(released, { recursive: true, force: true });
}
