/**
 * `npm run bench:concurrency`: conflicting updates sent at once, before and after the row lock
 * of server/repos/modify-doc.ts, in one run on this machine.
 *
 * (1) Strategies, on PostgreSQL with plain SQL: C clients each do M read-modify-writes of one
 *     JSON row (contended) or of a row each (uncontended), three ways: no lock (the old
 *     read-then-rewrite), `SELECT … FOR NO KEY UPDATE` in the transaction (the choice), and a
 *     version column with compare-and-set, retrying the whole transaction when the set misses.
 *     Reports ops/s, retries and lost writes (each write adds its own key: all must be there).
 * (2) The service: the workload of tooling/concurrency/workload.ts (every scenario, `--rounds`
 *     rounds) against real service processes — SQLite (one process), PostgreSQL (one process)
 *     and PostgreSQL (two processes, each burst spread over both) — for this checkout and for
 *     the baseline commit (`--baseline`, default 6cc14ed: the code before the lock), each
 *     extracted with `git archive` (so HEAD: commit first) into a temporary folder that
 *     borrows this checkout's node_modules.
 *     The two alternate within each run, so both see the same machine load. Reports lost
 *     updates and illegal histories (must be 0 after), and burst throughput: requests of the
 *     bursts divided by their wall time.
 *
 * Results go to bench/results/concurrency.md (or `--out`); nothing is asserted.
 *
 *   npm run bench:concurrency [-- --rounds 8 --runs 2 --clients 16 --ops 40 --baseline 6cc14ed]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import { connect } from '../server/db/open.js';
import { openPostgres } from '../server/db/postgres.js';
import type { Db } from '../server/db/types.js';
import { integerOption, parseOrExit } from '../tooling/cli/command.js';
import {
  type RoundResult,
  runRound,
  SCENARIOS,
  type Send,
  type Totals,
  totals,
  WORKLOAD_API_VERSION,
} from '../tooling/concurrency/workload.js';
import { scratchDatabase } from '../tooling/node/scratch-database.js';
import { extractCommit } from '../tooling/releases/release-tree.js';
import { checked } from './support/options.js';
import { cpuModel, loadAverages, oneMinuteLoad, ROOT, resultsFile } from './support/report.js';
import { type RunningService, startService, testKey, UNLIMITED } from './support/service.js';
import { median } from './support/stats.js';

const { values } = parseOrExit({
  name: 'npm run bench:concurrency --',
  prefix: 'bench:concurrency',
  summary:
    'Conflicting updates at once, before and after the row lock: lost updates, illegal histories, throughput; to bench/results/concurrency.md.',
  options: {
    rounds: { type: 'string', value: 'N', default: '8', description: 'Rounds per scenario.' },
    runs: { type: 'string', value: 'N', default: '2', description: 'Runs of the service part.' },
    clients: { type: 'string', value: 'N', default: '16', description: 'Strategy clients.' },
    ops: { type: 'string', value: 'N', default: '40', description: 'Strategy writes per client.' },
    baseline: {
      type: 'string',
      value: 'REV',
      default: '6cc14ed',
      description: 'The commit measured as "before".',
    },
    postgres: {
      type: 'string',
      value: 'URL',
      default: process.env.TEST_DATABASE_URL ?? 'postgres://127.0.0.1:5432/test',
      description: 'PostgreSQL (a scratch schema is made and dropped).',
    },
    out: { type: 'string', value: 'FILE', description: 'Results file.' },
  },
});
const [ROUNDS, RUNS, CLIENTS, OPS] = checked('bench:concurrency', () => [
  integerOption('rounds', values.rounds, { min: 1 }),
  integerOption('runs', values.runs, { min: 1 }),
  integerOption('clients', values.clients, { min: 1 }),
  integerOption('ops', values.ops, { min: 1 }),
]);
const OUT = values.out ?? resultsFile('concurrency.md');
const PG = values.postgres;

// ---------------------------------------------------------------------------------------------
// (1) Strategies

type Strategy = 'none' | 'lock' | 'cas';

interface StrategyFigure {
  strategy: Strategy;
  contended: boolean;
  opsPerSecond: number;
  retries: number;
  lost: number;
}

async function withSchema<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const schema = await scratchDatabase('bench', PG);
  try {
    return await fn(schema.url);
  } finally {
    await schema.drop();
  }
}

/** One client's write number `n`: add its own key to the row's JSON. */
async function writeOnce(db: Db, strategy: Strategy, id: string, key: string): Promise<number> {
  for (let retries = 0; ; retries++) {
    const done = await db
      .transaction(async (tx) => {
        const lock = strategy === 'lock' ? ' FOR NO KEY UPDATE' : '';
        const row = await tx.get<{ data: string; version: number }>(
          `SELECT data, version FROM docs WHERE id = $1${lock}`,
          [id],
        );
        const data = JSON.parse(row!.data) as Record<string, number>;
        data[key] = 1;
        const guard = strategy === 'cas' ? ' AND version = $3' : '';
        const params =
          strategy === 'cas'
            ? [JSON.stringify(data), id, row!.version]
            : [JSON.stringify(data), id];
        const set = await tx.run(
          `UPDATE docs SET data = $1, version = version + 1 WHERE id = $2${guard}`,
          params,
        );
        // A missed compare-and-set rolls back everything the transaction did, as a handler's
        // events and idempotency record would have to be.
        if (set.changes === 0) throw new CasMiss();
        return true;
      })
      .catch((error: unknown) => {
        if (error instanceof CasMiss) return false;
        throw error;
      });
    if (done) return retries;
  }
}

class CasMiss extends Error {}

async function strategyFigure(strategy: Strategy, contended: boolean): Promise<StrategyFigure> {
  return withSchema(async (url) => {
    const db = connect(url);
    // One pool connection per client, as that many server requests would hold.
    const pool = openPostgres(url, CLIENTS);
    try {
      await db.run(
        'CREATE TABLE docs (id TEXT PRIMARY KEY, version INTEGER NOT NULL, data TEXT NOT NULL)',
      );
      const ids = Array.from({ length: contended ? 1 : CLIENTS }, (_, i) => `doc${i}`);
      for (const id of ids) await db.run("INSERT INTO docs VALUES ($1, 0, '{}')", [id]);
      let retries = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, c) => {
          const id = ids[contended ? 0 : c]!;
          for (let n = 0; n < OPS; n++)
            retries += await writeOnce(pool, strategy, id, `c${c}n${n}`);
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      let kept = 0;
      for (const row of await db.all<{ data: string }>('SELECT data FROM docs')) {
        kept += Object.keys(JSON.parse(row.data)).length;
      }
      return {
        strategy,
        contended,
        opsPerSecond: (CLIENTS * OPS) / seconds,
        retries,
        lost: CLIENTS * OPS - kept,
      };
    } finally {
      await pool.close();
      await db.close();
    }
  });
}

// ---------------------------------------------------------------------------------------------
// (2) The service, this checkout against the baseline

interface Service {
  send: Send;
  stop(): Promise<void>;
}

/** `cwd`'s service (an extracted commit), worker off, and how the workload talks to it. */
async function startTree(cwd: string, databaseUrl: string, secret: string): Promise<Service> {
  const service: RunningService = await startService({
    tree: cwd,
    databaseUrl,
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_LIVE: UNLIMITED, WORKER: 'off' },
  });
  const send: Send = async (method, path, body) => {
    const res = await fetch(`${service.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${secret}`,
        'patientcare-version': WORKLOAD_API_VERSION,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: await res.json() };
  };
  return { send, stop: service.stop };
}

type Setup = 'sqlite, 1 process' | 'postgres, 1 process' | 'postgres, 2 processes';
const SETUPS: readonly Setup[] = [
  'sqlite, 1 process',
  'postgres, 1 process',
  'postgres, 2 processes',
];

interface ServiceFigure {
  target: 'before' | 'after';
  setup: Setup;
  run: number;
  sum: Totals;
  results: RoundResult[];
  load: number;
}

/** A fresh database for `setup` with one test key; `drop` removes it. */
async function freshDatabase(
  setup: Setup,
): Promise<{ url: string; secret: string; drop(): Promise<void> }> {
  const database = await scratchDatabase(
    'bench_concurrency',
    setup.startsWith('sqlite') ? undefined : PG,
  );
  return { ...database, secret: await testKey(database.url) };
}

async function serviceFigure(
  target: 'before' | 'after',
  cwd: string,
  setup: Setup,
  run: number,
): Promise<ServiceFigure> {
  const database = await freshDatabase(setup);
  const processes = setup === 'postgres, 2 processes' ? 2 : 1;
  const services: Service[] = [];
  try {
    for (let i = 0; i < processes; i++)
      services.push(await startTree(cwd, database.url, database.secret));
    const senders = services.map((s) => s.send);
    const results = [];
    for (const scenario of SCENARIOS) {
      for (let round = 0; round < ROUNDS; round++)
        results.push(await runRound(senders, scenario, round));
    }
    const figure = { target, setup, run, sum: totals(results), results, load: oneMinuteLoad() };
    console.log(
      `${setup}, ${target}: ${figure.sum.requests} burst requests, lost ${figure.sum.lost}, illegal ${figure.sum.illegal}, unexpected ${figure.sum.unexpected}, ${(figure.sum.requests / (figure.sum.burstMs / 1000)).toFixed(0)} req/s, load ${figure.load.toFixed(2)}`,
    );
    return figure;
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    await database.drop();
  }
}

// ---------------------------------------------------------------------------------------------

const rate = (sum: Totals) => sum.requests / (sum.burstMs / 1000);

async function main(): Promise<void> {
  const loadStart = loadAverages(' ');
  const strategyRuns: StrategyFigure[] = [];
  for (let run = 0; run < RUNS; run++) {
    for (const contended of [true, false]) {
      for (const strategy of ['none', 'lock', 'cas'] as const) {
        const figure = await strategyFigure(strategy, contended);
        strategyRuns.push(figure);
        console.log(
          `strategy ${strategy}, ${contended ? 'one row' : 'a row each'}: ${figure.opsPerSecond.toFixed(0)} ops/s, retries ${figure.retries}, lost ${figure.lost}`,
        );
      }
    }
  }
  // Medians per (rows, strategy) over the runs; retries and lost writes summed.
  const strategies = strategyRuns
    .filter(
      (f, i) =>
        strategyRuns.findIndex((g) => g.strategy === f.strategy && g.contended === f.contended) ===
        i,
    )
    .map((f) => {
      const same = strategyRuns.filter(
        (g) => g.strategy === f.strategy && g.contended === f.contended,
      );
      return {
        ...f,
        opsPerSecond: median(same.map((g) => g.opsPerSecond)),
        perRun: same.map((g) => g.opsPerSecond.toFixed(0)).join(', '),
        retries: same.reduce((n, g) => n + g.retries, 0),
        lost: same.reduce((n, g) => n + g.lost, 0),
      };
    });

  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT })
    .toString()
    .trim();
  // Both from `git archive`, so the two run the same way and edits made while the bench runs
  // do not leak into "after".
  const baseline = extractCommit(ROOT, values.baseline, 'bench-baseline-');
  const current = extractCommit(ROOT, head, 'bench-baseline-');
  const figures: ServiceFigure[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      for (const setup of SETUPS) {
        // Alternate which goes first, so neither always meets the warmer (or busier) machine.
        const order =
          run % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
        for (const target of order) {
          figures.push(
            await serviceFigure(target, target === 'before' ? baseline : current, setup, run),
          );
        }
      }
    }
  } finally {
    rmSync(baseline, { recursive: true, force: true });
    rmSync(current, { recursive: true, force: true });
  }
  const loadEnd = loadAverages(' ');

  const lines = [
    '# Concurrency: conflicting updates at once',
    '',
    `Command: \`npm run bench:concurrency -- --rounds ${ROUNDS} --runs ${RUNS} --clients ${CLIENTS} --ops ${OPS} --baseline ${values.baseline}\``,
    `Measured ${new Date().toISOString()} on ${cpus().length} × ${cpuModel()}, Node ${process.version}; load average at start ${loadStart}, at end ${loadEnd} (the machine is shared with other work).`,
    `"after" is this checkout's HEAD (${head}); "before" is ${values.baseline}, the code before the row lock; each from \`git archive\` into a temporary folder with this checkout's node_modules.`,
    '',
    '## Strategies (PostgreSQL, plain SQL)',
    '',
    `${CLIENTS} clients × ${OPS} read-modify-writes of a JSON row, each adding its own key, each in a transaction (BEGIN, SELECT, UPDATE, COMMIT). "lock": SELECT … FOR NO KEY UPDATE. "cas": a version column, UPDATE … WHERE version = read one, the whole transaction retried when it misses. "none": neither (the old code).`,
    '',
    `Medians of ${RUNS} runs; retries and lost writes summed over them.`,
    '',
    '| rows | strategy | ops/s (median) | per run | retries | lost writes |',
    '|---|---|---|---|---|---|',
    ...strategies.map(
      (f) =>
        `| ${f.contended ? 'one row' : 'a row each'} | ${f.strategy} | ${f.opsPerSecond.toFixed(0)} | ${f.perRun} | ${f.retries} | ${f.lost} |`,
    ),
    '',
    '## The service',
    '',
    `Every scenario of tooling/concurrency/workload.ts × ${ROUNDS} rounds per setup and run (${SCENARIOS.map((s) => s.name).join('; ')}). "lost": 200 replies whose change is missing at the end. "illegal": rounds no serial order of the burst explains through server/domain's rules (or whose events do not match it). "unexpected": replies other than 200 and the rules' 4xx. Throughput: burst requests / wall time of the bursts (setup and checks excluded); medians over ${RUNS} runs, before and after alternating.`,
    '',
    '| setup | target | burst requests | lost | illegal rounds | unexpected | burst req/s (median) | per run | after/before |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const setup of SETUPS) {
    const rates: Record<string, number> = {};
    for (const target of ['before', 'after'] as const) {
      const runs = figures.filter((f) => f.setup === setup && f.target === target);
      const sum = (pick: (t: Totals) => number) => runs.reduce((n, f) => n + pick(f.sum), 0);
      rates[target] = median(runs.map((f) => rate(f.sum)));
      lines.push(
        `| ${setup} | ${target} | ${sum((t) => t.requests)} | ${sum((t) => t.lost)} | ${sum((t) => t.illegal)} of ${sum((t) => t.rounds)} | ${sum((t) => t.unexpected)} | ${rates[target]!.toFixed(0)} | ${runs.map((f) => `${rate(f.sum).toFixed(0)} (load ${f.load.toFixed(1)})`).join(', ')} | ${target === 'after' ? `${((rates.after! / rates.before!) * 100).toFixed(0)}%` : ''} |`,
      );
    }
  }
  lines.push(
    '',
    'By scenario (all setups and runs): lost updates / illegal rounds of rounds.',
    '',
    '| scenario | before, SQLite | after, SQLite | before, PostgreSQL | after, PostgreSQL |',
    '|---|---|---|---|---|',
  );
  for (const scenario of SCENARIOS) {
    const cell = (target: 'before' | 'after', sqlite: boolean) => {
      const rounds = figures
        .filter((f) => f.target === target && f.setup.startsWith('sqlite') === sqlite)
        .flatMap((f) => f.results.filter((r) => r.scenario === scenario.name));
      const lost = rounds.reduce((n, r) => n + r.lost, 0);
      const illegal = rounds.reduce((n, r) => n + r.illegal, 0);
      return `${lost} / ${illegal} of ${rounds.length}`;
    };
    lines.push(
      `| ${scenario.name} | ${cell('before', true)} | ${cell('after', true)} | ${cell('before', false)} | ${cell('after', false)} |`,
    );
  }
  // One example per scenario of what "before" got wrong, as the check reported it.
  const examples = SCENARIOS.flatMap((scenario) => {
    const bad = figures
      .filter((f) => f.target === 'before')
      .flatMap((f) => f.results)
      .find((r) => r.scenario === scenario.name && r.detail !== undefined);
    return bad ? [`- ${bad.scenario}: ${bad.detail!.slice(0, 600)}`] : [];
  });
  if (examples.length > 0)
    lines.push('', 'What "before" got wrong, one round per scenario:', '', ...examples);
  const afterDetails = figures.filter((f) => f.target === 'after').flatMap((f) => f.sum.details);
  if (afterDetails.length > 0)
    lines.push('', 'After, not explained:', '', ...afterDetails.map((d) => `- ${d}`));
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${lines.join('\n')}\n`);
  console.log(`wrote ${OUT}`);
}

await main();
