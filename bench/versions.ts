/**
 * `npm run bench:versions`: what dated versions cost per request, in one process and one run:
 *
 * - today: the service as released before versions were real (commit 6cc14ed, extracted to a
 *   temporary folder and loaded beside this one), sending `PatientCare-Version: 2026-11-01` as
 *   its generated client does on every request (so every variant parses one version header);
 * - before: `main` just before the versions branch was merged (7c7001d), the same header.
 *   Other work reached main between 6cc14ed and that merge (audit, webhook key bindings, …),
 *   so *latest* vs this variant is what versions themselves cost;
 * - latest: this service, `PatientCare-Version: 2026-12-01` (handlers' own shape: the request
 *   pays the version choice and the date-time conversion of appointments);
 * - oldest: this service pinned to `2026-11-01` (request judged by its version's document,
 *   migrated up, response down);
 * - main, main-oldest: the same two requests on `--base` (default `main`), so a branch's change
 *   is measured against the tree it will merge into, in the same rounds.
 *
 * Each variant answers `GET /v1/appointments/{id}` and `POST /v1/appointments` through
 * `app.inject()` on its own in-memory SQLite database, so the figure is the service's own CPU
 * cost per request without sockets. Variants alternate within every round (the order rotates),
 * so all see the same machine load; medians of the rounds and paired per-round ratios go to
 * bench/results/versions.md.
 * Targets: latest ≤ 3% over today (paired); oldest ≤ 10% over latest. Nothing is asserted.
 *
 *   npm run bench:versions [-- --rounds 15 --requests 400 --base main --out FILE]
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { integerOption, parseOrExit } from '../tooling/cli/command.js';
import { extractCommit } from '../tooling/releases/release-tree.js';
import { checked, outOption, roundsOption } from './support/options.js';
import { cpuModel, loadAverages, ROOT, resultsFile, writeResults } from './support/report.js';
import { median, pairedRatios } from './support/stats.js';

const RELEASED = '6cc14ed';
/** `main` just before the versions merge (09e729c's first parent). */
const BEFORE_MERGE = '7c7001d';

const { values } = parseOrExit({
  name: 'npm run bench:versions --',
  prefix: 'bench:versions',
  summary:
    'Per-request cost of the oldest pinned version vs the latest vs the service before versions (6cc14ed), GET and POST, one process; medians to bench/results/versions.md.',
  options: {
    rounds: roundsOption(15),
    requests: {
      type: 'string',
      value: 'N',
      default: '400',
      description: 'Requests per variant and round.',
    },
    out: outOption('versions.md'),
    base: {
      type: 'string',
      value: 'REF',
      default: 'main',
      description: 'The git revision measured beside this tree (variants main, main-oldest).',
    },
  },
});
const [rounds, requests] = checked('bench:versions', () => [
  integerOption('rounds', values.rounds, { min: 1 }),
  integerOption('requests', values.requests, { min: 10 }),
]);
const out = values.out ?? resultsFile('versions.md');

type Inject = (request: {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  payload?: string;
}) => Promise<{
  statusCode: number;
}>;

interface Variant {
  name: 'today' | 'before' | 'main' | 'main-oldest' | 'latest' | 'oldest';
  inject: Inject;
  headers: Record<string, string>;
  get: string;
  postBody: string;
  close: () => Promise<void>;
}

/** Builds one service from `root` (this tree or the released one) on an in-memory database. */
async function service(root: string, version: string, times: 'seconds' | 'date-time') {
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
    'patientcare-version': version,
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

// Each tree extracted into a temporary folder, sharing this tree's node_modules.
const released = extractCommit(ROOT, RELEASED, 'bench-versions-');
const beforeMerge = extractCommit(ROOT, BEFORE_MERGE, 'bench-versions-');
const base = extractCommit(ROOT, values.base ?? 'main', 'bench-versions-');
const baseCommit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', values.base ?? 'main'])
  .toString()
  .trim();
try {
  const variants: Variant[] = [
    { name: 'today', ...(await service(released, '2026-11-01', 'seconds')) },
    { name: 'before', ...(await service(beforeMerge, '2026-11-01', 'seconds')) },
    { name: 'main', ...(await service(base, '2026-12-01', 'date-time')) },
    { name: 'main-oldest', ...(await service(base, '2026-11-01', 'seconds')) },
    { name: 'latest', ...(await service(ROOT, '2026-12-01', 'date-time')) },
    { name: 'oldest', ...(await service(ROOT, '2026-11-01', 'seconds')) },
  ];
  const NAMES = variants.map((v) => v.name);
  const load = loadAverages();
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
  // Paired: the ratio of two variants measured in the same round (seconds apart, same machine
  // load), median over the rounds; steadier than a ratio of medians on a shared machine.
  const paired = (a: string, b: string) =>
    median(pairedRatios(samples.get(a)!, samples.get(b)!)) - 1;
  const signed = (r: number) => `${r >= 0 ? '+' : ''}${(r * 100).toFixed(1)}%`;
  const rows = (['GET', 'POST'] as const).map((method) => {
    const at = (v: string) => `${v} ${method}`;
    const vsToday = paired(at('latest'), at('today'));
    const oldVsLatest = paired(at('oldest'), at('latest'));
    const cells = [
      method === 'GET' ? 'GET /v1/appointments/{id}' : 'POST /v1/appointments',
      ...NAMES.map((v) => m(at(v)).toFixed(1)),
      signed(vsToday),
      signed(paired(at('latest'), at('main'))),
      signed(oldVsLatest),
      signed(paired(at('main-oldest'), at('main'))),
      signed(paired(at('oldest'), at('main-oldest'))),
      vsToday <= 0.03 ? 'met' : '**missed**',
      oldVsLatest <= 0.1 ? 'met' : '**missed**',
      NAMES.map((v) => least(at(v)).toFixed(0)).join(' / '),
    ];
    return `| ${cells.join(' | ')} |`;
  });
  const text = `# Cost of dated versions per request (bench/versions.ts)

Command: \`npm run bench:versions -- --rounds ${rounds} --requests ${requests}\`. One process, \`app.inject()\`
(no sockets), each variant on its own in-memory SQLite database with one key, one patient and
one appointment; ${requests} sequential requests per variant, method and round, the six
variants alternating inside each of ${rounds} rounds (rotating order) after one warm-up pass;
figures are medians of the rounds in CPU µs (user + system of the process) per request. *today* is the service at ${RELEASED} (before
versions were real) with \`PatientCare-Version: 2026-11-01\` (its only version, which its generated client sends on every request); *latest* is this tree with \`PatientCare-Version: 2026-12-01\`;
*before* is \`main\` just before the versions merge (${BEFORE_MERGE}), same header: other work merged between ${RELEASED} and the versions merge, so *latest vs before* is what versions cost;
*oldest* is this tree pinned to \`2026-11-01\` (request judged by its version's document, migrated up, response down); *main* and *main-oldest* are the same two on \`${values.base ?? 'main'}\` (${baseCommit}), measured in the same rounds. POST
creates a booked appointment (no Idempotency-Key).

Machine: ${cpus().length} × ${cpuModel()} (shared with other work); 1/5/15-min load at start
${load}, at end ${loadAverages()}. Node ${process.version}.

Medians of the rounds (CPU µs per request), then paired ratios (median over rounds of the
ratio of two variants measured in the same round):

| request | ${NAMES.join(' | ')} | latest vs today | latest vs main | oldest vs latest | main-oldest vs main | oldest vs main-oldest | latest ≤ today + 3% | oldest ≤ latest + 10% | least of the rounds: ${NAMES.join(' / ')} |
|---|${'---:|'.repeat(NAMES.length + 5)}---|---|---|
${rows.join('\n')}

Every round (CPU µs per request):

| variant | ${Array.from({ length: rounds }, (_, i) => i + 1).join(' | ')} |
|---|${'---:|'.repeat(rounds)}
${[...samples].map(([k, xs]) => `| ${k} | ${xs.map((x) => x.toFixed(0)).join(' | ')} |`).join('\n')}
`;
  writeResults(out, text);
} finally {
  rmSync(released, { recursive: true, force: true });
  rmSync(beforeMerge, { recursive: true, force: true });
  rmSync(base, { recursive: true, force: true });
}
