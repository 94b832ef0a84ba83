/**
 * `npm run bench:server`: HTTP figures of the service on this machine, with autocannon in this
 * process and each server in a process of its own:
 *
 * (a) a bare Fastify route answering the same JSON as (b), the reference;
 * (b) `GET /v1/patients?limit=10` on the real service (`server/main.ts` bundled into
 *     `build/server/main.js`, as `npm start` runs it: auth, validation, rate limit raised out of the way, audit, SQLite file, info logs);
 * (b′) the same page with a different `created[lte]` bound on every request: no two reads are
 *     alike, so the service cannot answer several with one read (server/db/read-batch.ts);
 * (c) `POST /v1/patients` with a fresh `Idempotency-Key` on every request;
 * (d) the service process's RSS, sampled from /proc every 100 ms under load (max).
 *
 * For each service measurement it also says where the machine's cores went (/proc): the
 * service's processes, PostgreSQL's, autocannon (this process), the rest, the host's steal
 * (a virtual machine), idle; with `--workers N` that is the account of what a second process
 * could have used.
 *
 * (a), (b) and (b′) alternate within each run, so both see the same machine load. Medians of the
 * runs go to `bench/results/server.md` (or `--out`); nothing is asserted.
 *
 *   npm run bench:server [-- --runs 3 --seconds 10 --connections 50 --out FILE]
 *   npm run bench:server -- --db postgres://127.0.0.1:5432/pc_bench --out bench/results/server-postgres.md
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { choiceOption, integerOption, parseOrExit } from '../tooling/cli/command.js';
import { stopChild, waitForHttp } from '../tooling/node/child-process.js';
import { freePort } from '../tooling/node/ports.js';
import {
  checked,
  connectionsOption,
  outOption,
  runsOption,
  secondsOption,
} from './support/options.js';
import { type Cores, coresFrom, rssOf, summed, treeOf } from './support/proc.js';
import {
  cpuModel,
  loadAverages,
  oneMinuteLoad,
  packageVersion,
  ROOT,
  resultsFile,
  writeResults,
} from './support/report.js';
import { createPatients, createRequest } from './support/seed.js';
import { buildService, startService, testKey } from './support/service.js';
import { median } from './support/stats.js';

const { values } = parseOrExit({
  name: 'npm run bench:server --',
  prefix: 'bench:server',
  summary:
    'HTTP figures of the service on this machine (bare Fastify reference, GET list, distinct reads, POST create, RSS); medians to bench/results/server.md.',
  options: {
    runs: runsOption(3),
    seconds: secondsOption(10),
    connections: connectionsOption(50),
    out: outOption('server.md'),
    role: {
      type: 'string',
      value: 'ROLE',
      default: 'bench',
      description: 'Internal: bench or bare (child process).',
    },
    port: { type: 'string', value: 'PORT', description: 'Internal: port of the bare child.' },
    body: { type: 'string', value: 'FILE', description: 'Internal: body file of the bare child.' },
    env: {
      type: 'string',
      value: 'NAME=VALUE',
      multiple: true,
      description: 'Profiling aid: extra environment for the service.',
    },
    'node-arg': {
      type: 'string',
      value: 'FLAG',
      multiple: true,
      description: "Profiling aid: a flag for the service's node, e.g. --node-arg=--cpu-prof.",
    },
    only: {
      type: 'string',
      value: 'get|post',
      description: 'Only the GET measurements (a, b, b′) or only the POST one (c).',
    },
    db: {
      type: 'string',
      value: 'URL',
      description: "The service's database (default a fresh SQLite file); use one of its own.",
    },
    workers: {
      type: 'string',
      value: 'N',
      default: '1',
      description:
        'Service processes (WORKERS=N npm start, PostgreSQL only); CPU and RSS are summed over them.',
    },
  },
});
const [RUNS, SECONDS, CONNECTIONS, ONLY, WORKERS] = checked(
  'bench:server',
  () =>
    [
      integerOption('runs', values.runs, { min: 1 }),
      integerOption('seconds', values.seconds, { min: 1 }),
      integerOption('connections', values.connections, { min: 1 }),
      choiceOption('only', values.only, ['get', 'post']),
      integerOption('workers', values.workers, { min: 1 }),
    ] as const,
);
const OUT = values.out ?? resultsFile('server.md');

if (values.role === 'bare') {
  await runBare(Number(values.port), values.body ?? '');
} else {
  await runBench();
}

/**
 * (a): the least a Fastify route can do with the same payload. The list is parsed once and
 * serialised per request (as the service does), without logging, hooks or schemas.
 */
async function runBare(port: number, bodyFile: string): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const payload = JSON.parse(readFileSync(bodyFile, 'utf8')) as unknown;
  const app = Fastify({ logger: false });
  app.get('/v1/patients', async () => payload);
  await app.listen({ host: '127.0.0.1', port });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface Figure {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  load: number;
  rssMax?: number;
  /** Service CPU time (all its threads) per answered request, in µs; less noisy than req/s. */
  cpuUsPerRequest?: number;
  /** Where the cores went (service measurements only). */
  cores?: Cores;
}

/** `--env NAME=VALUE` pairs as an environment. */
function extraEnvironment(pairs: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}

type Service = Awaited<ReturnType<typeof startService>>;

/**
 * What `npm start` runs: the build (server bundle and docs site), then build/server/main.js;
 * WORKERS=N runs through `npm start`'s script, whose primary forks the service processes.
 */
async function startBenchService(databaseUrl: string, secret: string): Promise<Service> {
  buildService();
  const service = await startService({
    databaseUrl,
    secret,
    workers: WORKERS,
    nodeArgs: values['node-arg'] ?? [],
    env: extraEnvironment(values.env ?? []),
  });
  // The first process to listen answered; give the others the time a start takes.
  while (WORKERS > 1 && treeOf(service.child.pid!).length <= WORKERS) await sleep(200);
  if (WORKERS > 1) await sleep(3000);
  return service;
}

/**
 * 12 patients with a few fields each: a page of 10 is a list of about 2.4 KB. Returns the
 * page as the service answers it, also written to a file for the bare route.
 */
async function seedList(base: string, secret: string, dir: string) {
  await createPatients(base, secret, 12);
  const listRes = await fetch(`${base}/v1/patients?limit=10`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  const listText = await listRes.text();
  const bodyFile = join(dir, 'list.json');
  writeFileSync(bodyFile, listText);
  return { listText, bodyFile };
}

/** Starts (a), the bare route, as a child serving `bodyFile`; checks it answers `listText`. */
async function startBare(
  bodyFile: string,
  listText: string,
  children: ChildProcess[],
): Promise<string> {
  const barePort = await freePort();
  const bare = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      import.meta.filename,
      '--role',
      'bare',
      '--port',
      String(barePort),
      '--body',
      bodyFile,
    ],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  children.push(bare);
  const url = `http://127.0.0.1:${barePort}/v1/patients?limit=10`;
  await waitForHttp(url, 60_000, () => bare.exitCode === null, { ok: true });
  const bareText = await (await fetch(url)).text();
  if (bareText !== listText) throw new Error('the bare route does not answer the same JSON');
  return url;
}

/**
 * One autocannon measurement; with `servicePid`, the service's RSS (sampled every 100 ms),
 * CPU per request and where the cores went are measured too.
 */
async function measure(
  label: string,
  options: Partial<autocannon.Options>,
  servicePid: number | undefined,
): Promise<Figure> {
  const sampleRss = servicePid !== undefined;
  let rssMax = 0;
  const timer = sampleRss
    ? setInterval(() => {
        rssMax = Math.max(rssMax, summed(servicePid, rssOf) ?? 0);
      }, 100)
    : undefined;
  const coresUsed = sampleRss ? coresFrom(servicePid) : undefined;
  const result = await autocannon({
    connections: CONNECTIONS,
    duration: SECONDS,
    ...options,
  } as autocannon.Options);
  if (timer) clearInterval(timer);
  const used = coresUsed?.();
  const cores = used?.cores;
  const answered = result.requests.total;
  const cpuUs = used !== undefined && answered > 0 ? (used.serviceMs * 1000) / answered : undefined;
  const figure: Figure = {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    load: oneMinuteLoad(),
    ...(sampleRss ? { rssMax } : {}),
    ...(cpuUs !== undefined ? { cpuUsPerRequest: cpuUs } : {}),
    ...(cores !== undefined ? { cores } : {}),
  };
  process.stdout.write(
    `${label}: ${Math.round(figure.rps)} req/s, p50 ${figure.p50} ms, p99 ${figure.p99} ms, non-2xx ${figure.non2xx}, errors ${figure.errors}, load ${figure.load.toFixed(2)}${sampleRss ? `, RSS max ${(rssMax / 2 ** 20).toFixed(0)} MB` : ''}${cpuUs !== undefined ? `, service CPU ${cpuUs.toFixed(0)} µs/req` : ''}${cores !== undefined ? `, cores ${coreText(cores)}` : ''}\n`,
  );
  return figure;
}

/** Where the measurements go: the service, its pid, the bare route, the key's header. */
interface Targets {
  base: string;
  servicePid: number;
  bareUrl: string;
  auth: Record<string, string>;
  /** A `created[lte]` bound no request has used yet, for (b′). */
  nextBound: () => number;
}

/** The GET measurements of one run, alternating: (a) bare, (b) the list, (b′) no two alike. */
async function getRun(run: number, t: Targets) {
  const bare = await measure(`run ${run} bare Fastify`, { url: t.bareUrl }, undefined);
  const get = await measure(
    `run ${run} GET /v1/patients`,
    { url: `${t.base}/v1/patients?limit=10`, headers: t.auth },
    t.servicePid,
  );
  const distinct = await measure(
    `run ${run} GET /v1/patients, no two alike`,
    {
      url: t.base,
      requests: [
        {
          method: 'GET',
          headers: t.auth,
          // The same page, but each request's own upper bound on `created` (years
          // ahead): no two reads are alike, so none is shared (see server/db/read-batch.ts).
          setupRequest: (request) => ({
            ...request,
            path: `/v1/patients?limit=10&created%5Blte%5D=${t.nextBound()}`,
          }),
        },
      ],
    },
    t.servicePid,
  );
  return { bare, get, distinct };
}

/** (c): one POST measurement. */
function postRun(run: number, t: Targets): Promise<Figure> {
  return measure(
    `run ${run} POST /v1/patients`,
    { url: t.base, requests: [createRequest(t.auth)] },
    t.servicePid,
  );
}

/**
 * The phases: a key, the service, the seeded list, the bare route, RUNS rounds of the GET
 * measurements, then RUNS of the POST one, the report.
 */
async function runBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'patient-care-bench-server-'));
  const databaseUrl = values.db ?? `sqlite:${join(dir, 'bench.db')}`;
  const children: ChildProcess[] = [];
  let service: Service | undefined;
  let distinctSeq = 0;
  try {
    const secret = await testKey(databaseUrl);
    service = await startBenchService(databaseUrl, secret);
    const { listText, bodyFile } = await seedList(service.base, secret, dir);
    const targets: Targets = {
      base: service.base,
      servicePid: service.child.pid!,
      bareUrl: await startBare(bodyFile, listText, children),
      auth: { authorization: `Bearer ${secret}` },
      // From 2100-01-01 in unix seconds, one more each request.
      nextBound: () => 4_102_444_800 + distinctSeq++,
    };

    const loadStart = loadAverages();
    const bareRuns: Figure[] = [];
    const getRuns: Figure[] = [];
    const distinctRuns: Figure[] = [];
    const postRuns: Figure[] = [];
    if (ONLY === undefined || ONLY === 'get') {
      for (let run = 1; run <= RUNS; run++) {
        const { bare, get, distinct } = await getRun(run, targets);
        bareRuns.push(bare);
        getRuns.push(get);
        distinctRuns.push(distinct);
      }
    }
    if (ONLY === undefined || ONLY === 'post') {
      for (let run = 1; run <= RUNS; run++) postRuns.push(await postRun(run, targets));
    }
    const loadEnd = loadAverages();

    writeReport({
      bareRuns,
      getRuns,
      distinctRuns,
      postRuns,
      listBytes: Buffer.byteLength(listText),
      loadStart,
      loadEnd,
    });
  } finally {
    await service?.stop();
    for (const child of children) await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `service 0.9 · PostgreSQL 0.5 · autocannon 0.4 · other 0.1 · idle 0.1`. */
function coreText(cores: Cores): string {
  return [
    `service ${cores.service.toFixed(2)}`,
    `PostgreSQL ${cores.database.toFixed(2)}`,
    `autocannon ${cores.loadGenerator.toFixed(2)}`,
    `other ${cores.other.toFixed(2)}`,
    `stolen ${cores.stolen.toFixed(2)}`,
    `idle ${cores.idle.toFixed(2)}`,
  ].join(' · ');
}

/** Each run's GET req/s as a share of the same run's bare req/s, e.g. `35%, 35%, 30%`. */
function pairRatios(bare: readonly Figure[], get: readonly Figure[]): string {
  return get
    .map((g, i) => (bare[i] ? `${((g.rps / bare[i].rps) * 100).toFixed(0)}%` : '—'))
    .join(', ');
}

interface ReportInput {
  bareRuns: Figure[];
  getRuns: Figure[];
  /** (b'): the same page, every request with its own query, so no read is shared. */
  distinctRuns: Figure[];
  postRuns: Figure[];
  listBytes: number;
  /** 1/5/15-min load averages. */
  loadStart: string;
  loadEnd: string;
}

function writeReport(input: ReportInput): void {
  const { bareRuns, getRuns, distinctRuns, postRuns } = input;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MB`;
  const loads = (figs: Figure[]) => figs.map((f) => f.load.toFixed(2)).join(', ');
  const rows: string[] = [];
  const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
  if (getRuns.length > 0) {
    const bare = median(bareRuns.map((f) => f.rps));
    const get = median(getRuns.map((f) => f.rps));
    const p99 = median(getRuns.map((f) => f.p99));
    const ratio = get / bare;
    rows.push(
      `| (a) bare Fastify, same JSON | ${fmt(bare)} req/s, p99 ${median(bareRuns.map((f) => f.p99))} ms | reference | — | ${loads(bareRuns)} |`,
      // (a) and (b) of one run saw the same machine, so each run's own ratio is shown too.
      `| (b) GET /v1/patients?limit=10 | ${fmt(get)} req/s (${(ratio * 100).toFixed(0)}% of (a); per run ${pairRatios(bareRuns, getRuns)}) | ≥ 50% of (a) | ${verdict(ratio >= 0.5)} | ${loads(getRuns)} |`,
      `| (b) GET p99 latency | ${p99} ms (p50 ${median(getRuns.map((f) => f.p50))} ms) | < 20 ms | ${verdict(p99 < 20)} | |`,
    );
  }
  if (distinctRuns.length > 0) {
    const bare = median(bareRuns.map((f) => f.rps));
    const distinct = median(distinctRuns.map((f) => f.rps));
    rows.push(
      `| (b′) the same page, no two requests alike (\`created[lte]\` differs) | ${fmt(distinct)} req/s (${((distinct / bare) * 100).toFixed(0)}% of (a); per run ${pairRatios(bareRuns, distinctRuns)}), p99 ${median(distinctRuns.map((f) => f.p99))} ms | none (shows (b) without shared reads) | — | ${loads(distinctRuns)} |`,
    );
  }
  if (postRuns.length > 0) {
    const post = median(postRuns.map((f) => f.rps));
    rows.push(
      `| (c) POST /v1/patients, fresh Idempotency-Key | ${fmt(post)} req/s, p99 ${median(postRuns.map((f) => f.p99))} ms | ≥ 2,000 /s | ${verdict(post >= 2000)} | ${loads(postRuns)} |`,
    );
  }
  const rssRuns = [...getRuns, ...distinctRuns, ...postRuns];
  if (rssRuns.length > 0) {
    const rss = Math.max(...rssRuns.map((f) => f.rssMax ?? 0));
    rows.push(
      `| (d) service RSS under load (max of all samples) | ${mb(rss)} | < 200 MB | ${verdict(rss < 200 * 2 ** 20)} | |`,
    );
  }
  const perRun = [
    ...bareRuns.map((f, i) => ['(a) bare', i, f] as const),
    ...getRuns.map((f, i) => ['(b) GET', i, f] as const),
    ...distinctRuns.map((f, i) => ['(b′) GET, no two alike', i, f] as const),
    ...postRuns.map((f, i) => ['(c) POST', i, f] as const),
  ].map(
    ([name, i, f]) =>
      `| ${name} | ${i + 1} | ${fmt(f.rps)} | ${f.p50} | ${f.p99} | ${f.non2xx} | ${f.errors} | ${f.rssMax === undefined ? '—' : mb(f.rssMax)} | ${f.cpuUsPerRequest === undefined ? '—' : Math.round(f.cpuUsPerRequest)} | ${f.cores === undefined ? '—' : coreText(f.cores)} | ${f.load.toFixed(2)} |`,
  );
  const args = [
    values.runs !== '3' ? `--runs ${RUNS}` : '',
    values.seconds !== '10' ? `--seconds ${SECONDS}` : '',
    values.connections !== '50' ? `--connections ${CONNECTIONS}` : '',
    ...(values.env ?? []).map((pair) => `--env ${pair}`),
    values.only ? `--only ${values.only}` : '',
    WORKERS > 1 ? `--workers ${WORKERS}` : '',
    values.db ? `--db ${values.db.startsWith('postgres') ? '<postgres url>' : values.db}` : '',
  ].filter((a) => a !== '');
  const command = `npm run bench:server${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`;
  const report = `# Service HTTP benchmark (bench/server.ts)

Command: \`${command}\` — autocannon ${packageVersion('autocannon')} in the bench process,
${CONNECTIONS} connections, ${SECONDS} s per measurement, 127.0.0.1, ${RUNS} run(s); figures are medians of the runs
(req/s is autocannon's mean of per-second samples). The service is \`server/main.ts\` bundled
by \`npm start\`'s \`prestart\` into \`build/server/main.js\` and run with node, in its own process on ${values.db?.startsWith('postgres') ? 'PostgreSQL (same machine)' : 'a SQLite file (WAL, synchronous=FULL)'}, info-level logs
written to /dev/null, \`RATE_LIMIT_TEST=1000000\` so the limiter counts every request but
never refuses (the process leases 5% of the bucket at a time: one database write per lease). The bare route runs in another process. (a), (b) and (b′)
alternate inside each run; (b′) asks for the same page as (b) with its own \`created[lte]\` bound on every request, so the
service can never answer two of them with one read (see \`server/db/read-batch.ts\`). The list body is ${input.listBytes.toLocaleString('en-US')} bytes (10 patients).${WORKERS > 1 ? `\n\n${WORKERS} service processes (\`WORKERS=${WORKERS}\`, node:cluster, started as \`npm start\` starts them); service CPU and RSS are the sums over the primary and its processes.` : ''}${values.db?.startsWith('postgres') ? "\n\nIssue 4's targets are set for the SQLite default; on PostgreSQL the verdicts below are for comparison only." : ''}

Machine: ${cpus().length} × ${cpuModel()} (nproc ${cpus().length}, shared with other work), ${(totalmem() / 2 ** 30).toFixed(1)} GB RAM
(${(freemem() / 2 ** 30).toFixed(1)} GB free at the end); 1/5/15-min load average at start
${input.loadStart}, at end ${input.loadEnd}.
Versions: Node ${process.version}, fastify ${packageVersion('fastify')}, better-sqlite3 ${packageVersion('better-sqlite3')}, autocannon ${packageVersion('autocannon')}.

| figure | result (median) | target | | 1-min load per run |
|---|---|---|---|---|
${rows.join('\n')}

## Every run

| measurement | run | req/s | p50 ms | p99 ms | non-2xx | errors | RSS max | service CPU µs/req | cores used | 1-min load |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|
${perRun.join('\n')}
`;
  writeResults(OUT, report);
}
