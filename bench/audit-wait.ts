/**
 * `npm run bench:audit-wait`: the read-audit writer alone on PostgreSQL, as a read's answer
 * waits for it (`record`, server/audit/writer.ts): CALLERS loops each record an entry and
 * wait for its batch to commit, as many reads in flight would, for SECONDS. No HTTP, so the
 * figures are the writer's: entries per second, the wait's p50/p99, the process's CPU per
 * entry, the mean batch and the statements sent per batch (each one round trip).
 *
 * A/B: each `--tree NAME=DIR` is a checkout (node_modules in place) whose own
 * server/ code is measured in a child process; the trees alternate within each round, each on
 * a fresh schema. Figures to bench/results/audit-wait.md (or `--out`); nothing is asserted.
 *
 *   npm run bench:audit-wait -- --db postgres://127.0.0.1:5432/test --tree base=/path --tree new=.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { integerOption, parseOrExit } from '../tooling/cli/command.js';
import { checked, outOption, secondsOption } from './support/options.js';
import {
  loadAverages,
  machine,
  markdownTable,
  oneMinuteLoad,
  ROOT,
  resultsFile,
  writeResults,
} from './support/report.js';
import { median, percentile } from './support/stats.js';

const { values } = parseOrExit({
  name: 'npm run bench:audit-wait --',
  prefix: 'bench:audit-wait',
  summary: 'The read-audit writer alone on PostgreSQL: callers waiting for their batch, A/B.',
  options: {
    db: { type: 'string', value: 'URL', description: 'PostgreSQL (a fresh schema per run).' },
    tree: {
      type: 'string',
      value: 'NAME=DIR[@N]',
      multiple: true,
      description:
        'A checkout to measure (default: this one, as `this`); `@N`: its writer with `batchesInFlight` N.',
    },
    'in-flight': { type: 'string', value: 'N', description: 'Internal: batchesInFlight.' },
    rounds: { type: 'string', value: 'N', default: '3', description: 'Alternating rounds.' },
    seconds: secondsOption(5),
    callers: { type: 'string', value: 'N', default: '50', description: 'Waiting callers.' },
    out: outOption('audit-wait.md'),
    role: { type: 'string', value: 'ROLE', default: 'bench', description: 'Internal: child.' },
  },
});
const [ROUNDS, SECONDS, CALLERS] = checked(
  'bench:audit-wait',
  () =>
    [
      integerOption('rounds', values.rounds, { min: 1 }),
      integerOption('seconds', values.seconds, { min: 1 }),
      integerOption('callers', values.callers, { min: 1 }),
    ] as const,
);
const BASE_URL = values.db ?? 'postgres://127.0.0.1:5432/test';

/** What a child reports. */
interface Figure {
  perSecond: number;
  p50: number;
  p99: number;
  cpuUsPerEntry: number;
  meanBatch: number;
  statementsPerBatch: number;
}

if (values.role === 'child') await child(values.tree?.[0] ?? ROOT);
else await bench();

/** One measurement of the writer of checkout `tree`, printed as one JSON line. */
async function child(tree: string): Promise<void> {
  const url = process.env.AUDIT_WAIT_URL ?? BASE_URL;
  const load = (path: string) => import(pathToFileURL(join(tree, path)).href);
  const { openDb } = await load('server/db/open.ts');
  const { openAuditWriter } = await load('server/audit/index.ts');
  const { newId } = await load('server/ids.ts');
  // The driver the tree's code sends through: each `query` call is one round trip.
  const driver = createRequire(join(tree, 'package.json'))('pg') as typeof pg;
  let statements = 0;
  const send = driver.Client.prototype.query;
  driver.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    statements++;
    return (send as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof send;

  const db = await openDb(url);
  const inFlight = values['in-flight'];
  const writer = openAuditWriter(
    db,
    inFlight === undefined ? {} : { batchesInFlight: Number(inFlight) },
  );
  const key = newId('key');
  const patients = Array.from({ length: 10 }, () => newId('pat'));
  const entry = () => ({
    keyId: key,
    operationId: 'listPatients',
    objectIds: patients,
    requestId: newId('req'),
    clientIp: '127.0.0.1',
    outcome: 'success',
  });
  const waits: number[] = [];
  let measuring = false;
  let stop = false;
  const caller = async () => {
    while (!stop) {
      const started = performance.now();
      const done = writer.record(entry());
      if (done === undefined) throw new Error('the writer refused an entry');
      await done;
      if (measuring) waits.push(performance.now() - started);
    }
  };
  const callers = Array.from({ length: CALLERS }, caller);
  await new Promise((r) => setTimeout(r, 1000));
  const rowsBefore = await counts(db);
  const statementsBefore = statements;
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  measuring = true;
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  measuring = false;
  const cpu = process.cpuUsage(cpuBefore);
  const elapsed = (performance.now() - startedAt) / 1000;
  const sent = statements - statementsBefore;
  const rowsAfter = await counts(db);
  stop = true;
  await Promise.all(callers);
  await writer.close();
  await db.close();
  const entries = waits.length;
  const batches = rowsAfter.batches - rowsBefore.batches;
  const figure: Figure = {
    perSecond: entries / elapsed,
    p50: percentile(waits, 50),
    p99: percentile(waits, 99),
    cpuUsPerEntry: (cpu.user + cpu.system) / entries,
    meanBatch: (rowsAfter.rows - rowsBefore.rows) / batches,
    // The two counting statements are not the writer's.
    statementsPerBatch: (sent - 2) / batches,
  };
  process.stdout.write(`${JSON.stringify(figure)}\n`);
}

/** Rows and batches stored so far. */
async function counts(db: {
  get: (sql: string) => Promise<Record<string, unknown> | undefined>;
}): Promise<{ rows: number; batches: number }> {
  const row = await db.get('SELECT COUNT(*) AS n, COUNT(DISTINCT batch_id) AS b FROM audit_log');
  return { rows: Number(row?.n), batches: Number(row?.b) };
}

/** The rounds: every tree once per round, each on a schema of its own. */
async function bench(): Promise<void> {
  const trees = (values.tree ?? [`this=${ROOT}`]).map((pair) => {
    const [, name = '', dir = '', inFlight] = /^([^=]+)=(.+?)(?:@(\d+))?$/.exec(pair) ?? [];
    return { name, dir: resolve(dir), inFlight };
  });
  // As the service's pools do (server/db/pg-pool.ts): the operating-system user by default.
  const adminUrl = new URL(BASE_URL);
  adminUrl.username ||= process.env.PGUSER || userInfo().username;
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  const loadStart = loadAverages();
  const rows: (string | number)[][] = [];
  const byTree = new Map<string, Figure[]>();
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const tree of trees) {
        const schema = `audit_wait_${process.pid}_${round}_${tree.name.replace(/\W/g, '_')}`;
        await admin.query(`CREATE SCHEMA ${schema}`);
        const url = new URL(BASE_URL);
        url.searchParams.set('options', `-c search_path=${schema}`);
        const load = oneMinuteLoad();
        try {
          const ran = spawnSync(
            'node',
            [
              '--import',
              'tsx',
              join(ROOT, 'bench', 'audit-wait.ts'),
              '--role',
              'child',
              '--tree',
              tree.dir,
              '--seconds',
              String(SECONDS),
              '--callers',
              String(CALLERS),
              ...(tree.inFlight === undefined ? [] : ['--in-flight', tree.inFlight]),
            ],
            {
              cwd: ROOT,
              encoding: 'utf8',
              env: { ...process.env, AUDIT_WAIT_URL: url.toString() },
            },
          );
          if (ran.status !== 0) throw new Error(`${tree.name} failed: ${ran.stderr}`);
          const figure = JSON.parse(ran.stdout.trim().split('\n').at(-1) ?? '') as Figure;
          byTree.set(tree.name, [...(byTree.get(tree.name) ?? []), figure]);
          rows.push([round, tree.name, ...cells(figure), load.toFixed(2)]);
          process.stderr.write(`${rows.at(-1)?.join(' | ')}\n`);
        } finally {
          await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        }
      }
    }
  } finally {
    await admin.end();
  }
  const medians = [...byTree].map(([name, figures]) => [
    name,
    ...cells({
      perSecond: median(figures.map((f) => f.perSecond)),
      p50: median(figures.map((f) => f.p50)),
      p99: median(figures.map((f) => f.p99)),
      cpuUsPerEntry: median(figures.map((f) => f.cpuUsPerEntry)),
      meanBatch: median(figures.map((f) => f.meanBatch)),
      statementsPerBatch: median(figures.map((f) => f.statementsPerBatch)),
    }),
  ]);
  const headers = [
    'entries/s',
    'wait p50 ms',
    'wait p99 ms',
    'CPU µs/entry',
    'batch',
    'statements/batch',
  ];
  writeResults(
    values.out ?? resultsFile('audit-wait.md'),
    [
      '# Read-audit writer alone: callers waiting for their batch (`npm run bench:audit-wait`)',
      '',
      `${CALLERS} callers, ${SECONDS} s per measurement after 1 s of warm-up, ${ROUNDS} alternating rounds, PostgreSQL on this machine; trees: ${trees.map((t) => `${t.name} = ${commitOf(t.dir)}${t.inFlight ? ` (${t.inFlight} batches in flight)` : ''}`).join(', ')}.`,
      `Machine: ${machine()}; 1/5/15-min load ${loadStart} at start, ${loadAverages()} at end.`,
      '',
      markdownTable(['round', 'tree', ...headers, '1-min load'], rows),
      '',
      'Medians:',
      '',
      markdownTable(['tree', ...headers], medians),
      '',
    ].join('\n'),
  );
}

/** The checkout's commit, and whether it has changes of its own. */
function commitOf(dir: string): string {
  const git = (...args: string[]) =>
    spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).stdout.trim();
  return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'server') ? ' with changes' : ''}`;
}

function cells(f: Figure): (string | number)[] {
  return [
    Math.round(f.perSecond).toLocaleString('en'),
    f.p50.toFixed(1),
    f.p99.toFixed(1),
    Math.round(f.cpuUsPerEntry),
    f.meanBatch.toFixed(1),
    f.statementsPerBatch.toFixed(2),
  ];
}
