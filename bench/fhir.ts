/**
 * `npm run bench:fhir`: the FHIR face's cost over `/v1`, in the same run on the same service.
 * `GET /fhir/R4/Patient?family=Bench&_count=10` (a PHI search: index range on the family name,
 * each stored patient mapped to FHIR, a searchset Bundle) against `GET /v1/patients?limit=10`
 * (stored JSON spliced as it is), alternating within each run so both see the same machine
 * load. The service is the build `npm start` runs (`build/server/main.js`) on a SQLite file,
 * in its own process, with the test rate limit raised out of the way. Medians go to
 * `bench/results/fhir.md` (or `--out`); the target (FHIR ≥ 85% of the /v1 list's requests
 * per second) is reported, never asserted.
 *
 *   npm run bench:fhir [-- --runs 3 --seconds 5 --connections 20 --out FILE]
 */
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import { exitOnFailure, integerOption, parseOrExit } from '../tooling/cli/command.js';
import { scratchDatabase } from '../tooling/node/scratch-database.js';
import {
  checked,
  connectionsOption,
  outOption,
  runsOption,
  secondsOption,
} from './support/options.js';
import { oneMinuteLoad, resultsFile, writeResults } from './support/report.js';
import { benchPatient, createPatients } from './support/seed.js';
import { buildService, type RunningService, startService, testKey } from './support/service.js';
import { median, pairedRatios } from './support/stats.js';

const { values } = parseOrExit({
  name: 'npm run bench:fhir --',
  prefix: 'bench:fhir',
  summary:
    'FHIR Patient search vs the /v1 patient list on one service, alternating; medians to bench/results/fhir.md.',
  options: {
    runs: runsOption(3),
    seconds: secondsOption(5),
    connections: connectionsOption(20),
    out: outOption('fhir.md'),
  },
});

const [RUNS, SECONDS, CONNECTIONS] = checked('bench:fhir', () => [
  integerOption('runs', values.runs, { min: 1 }),
  integerOption('seconds', values.seconds, { min: 1 }),
  integerOption('connections', values.connections, { min: 1 }),
]);
const OUT = values.out ?? resultsFile('fhir.md');
const TARGET = 0.85;

interface Figure {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function measure(url: string, headers: Record<string, string>): Promise<Figure> {
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
  };
}

const CPU_ROUNDS = 21;
const CPU_REQUESTS = 200;

/**
 * CPU µs per request of the two requests through `app.inject()` in this process, on the
 * benchmark's database file, alternating rounds; medians, and the median per-round ratio.
 */
async function cpuPerRequest(
  databaseUrl: string,
  secret: string,
): Promise<{ fhir: number; v1: number; ratio: number }> {
  const { openDb } = await import('../server/db/open.js');
  const { buildApp } = await import('../server/app.js');
  const db = await openDb(databaseUrl);
  const app = await buildApp({ db, config: { rateLimits: { testRps: 1_000_000 } } });
  const headers = { authorization: `Bearer ${secret}` };
  const cost = async (url: string): Promise<number> => {
    const started = process.cpuUsage();
    for (let i = 0; i < CPU_REQUESTS; i++) {
      const res = await app.inject({ method: 'GET', url, headers });
      if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
    }
    const used = process.cpuUsage(started);
    return (used.user + used.system) / CPU_REQUESTS;
  };
  const fhirUrl = '/fhir/R4/Patient?family=Bench&_count=10';
  const v1Url = '/v1/patients?limit=10';
  await cost(fhirUrl);
  await cost(v1Url);
  const fhir: number[] = [];
  const v1: number[] = [];
  for (let i = 0; i < CPU_ROUNDS; i++) {
    if (i % 2 === 0) {
      fhir.push(await cost(fhirUrl));
      v1.push(await cost(v1Url));
    } else {
      v1.push(await cost(v1Url));
      fhir.push(await cost(fhirUrl));
    }
  }
  await app.close();
  await db.close();
  return { fhir: median(fhir), v1: median(v1), ratio: median(pairedRatios(v1, fhir)) };
}

async function run(): Promise<void> {
  const database = await scratchDatabase('bench_fhir');
  const databaseUrl = database.url;
  let service: RunningService | undefined;
  try {
    const secret = await testKey(databaseUrl);
    const auth = { authorization: `Bearer ${secret}` };
    buildService();
    service = await startService({ databaseUrl, secret });
    const base = service.base;

    // 30 patients whose family names start with "Bench": both pages are 10 full patients.
    await createPatients(base, secret, 30, (i) => ({
      ...benchPatient(i),
      gender: 'female',
      email: `ada${i}@example.com`,
      identifiers: [{ type: 'MR', system: 'https://clinic.example/mrn', value: `B${i}` }],
    }));
    const fhirUrl = `${base}/fhir/R4/Patient?family=Bench&_count=10`;
    const v1Url = `${base}/v1/patients?limit=10`;
    const check = (await (await fetch(fhirUrl, { headers: auth })).json()) as { entry: unknown[] };
    if (check.entry.length !== 10) throw new Error('the FHIR search does not return a full page');

    const fhir: Figure[] = [];
    const v1: Figure[] = [];
    const loads: number[] = [];
    // One warm-up of each, not recorded.
    await measure(fhirUrl, auth);
    await measure(v1Url, auth);
    for (let i = 0; i < RUNS; i++) {
      loads.push(oneMinuteLoad());
      // Alternate which goes first, so neither always meets the other's aftermath.
      if (i % 2 === 0) {
        fhir.push(await measure(fhirUrl, auth));
        v1.push(await measure(v1Url, auth));
      } else {
        v1.push(await measure(v1Url, auth));
        fhir.push(await measure(fhirUrl, auth));
      }
      const f = fhir.at(-1)!;
      const v = v1.at(-1)!;
      console.log(
        `run ${i + 1}: FHIR ${f.rps.toFixed(0)} req/s, /v1 ${v.rps.toFixed(0)} req/s (${((100 * f.rps) / v.rps).toFixed(0)}%)`,
      );
    }
    const cpu = await cpuPerRequest(databaseUrl, secret);
    const ratios = pairedRatios(
      fhir.map((f) => f.rps),
      v1.map((v) => v.rps),
    );
    const row = (label: string, figures: Figure[]) =>
      `| ${label} | ${median(figures.map((f) => f.rps)).toFixed(0)} | ${median(figures.map((f) => f.p50)).toFixed(1)} | ${median(figures.map((f) => f.p99)).toFixed(1)} | ${figures.reduce((n, f) => n + f.non2xx, 0)} |`;
    const ratio = median(ratios);
    const text = `# FHIR search vs /v1 list

\`npm run bench:fhir -- --runs ${RUNS} --seconds ${SECONDS} --connections ${CONNECTIONS}\`: one service (\`build/server/main.js\` on a SQLite
file, info logs to /dev/null, \`RATE_LIMIT_TEST=1000000\`), 30 patients, the two requests alternating
within each run. Machine: ${cpus().length} cores, 1-minute load ${loads.map((l) => l.toFixed(1)).join(', ')} at the runs' starts
(shared machine: absolute figures move with the load; the ratio is the figure to read).

| request | req/s (median) | p50 ms | p99 ms | non-2xx |
|---|---|---|---|---|
${row('`GET /fhir/R4/Patient?family=Bench&_count=10`', fhir)}
${row('`GET /v1/patients?limit=10`', v1)}

FHIR / v1 throughput: ${(100 * ratio).toFixed(0)}% (median of per-run ratios ${ratios.map((r) => `${(100 * r).toFixed(0)}%`).join(', ')}); target ≥ ${100 * TARGET}%: ${ratio >= TARGET ? 'met' : 'not met'}.

CPU per request in one process (\`app.inject()\`, no sockets, on the same database file;
${CPU_ROUNDS} rounds of ${CPU_REQUESTS} requests of each, alternating; medians), which a loaded
machine disturbs far less than throughput: FHIR ${cpu.fhir.toFixed(0)} µs, /v1 ${cpu.v1.toFixed(0)} µs, /v1 ÷ FHIR
${(100 * cpu.ratio).toFixed(0)}% (median of per-round ratios). Without the socket and HTTP parsing both pay
alike, this ratio is lower than the throughput ratio of a quiet machine.
`;
    writeResults(OUT, text);
  } finally {
    await service?.stop();
    await database.drop();
  }
}

await run().catch(exitOnFailure('bench:fhir'));
