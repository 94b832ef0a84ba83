/**
 * `npm run bench:audit-verify`: how long `npm run audit -- verify` takes to walk a long audit
 * trail. Fills a fresh database with ROWS chained rows (batches of 5,000 through
 * `insertAuditBatch`, as the service's writers chain them), then times `verifyChain` over the
 * whole chain, RUNS times. Figures to bench/results/audit-verify.md (or `--out`).
 *
 *   npm run bench:audit-verify [-- --rows 1000000 --runs 2 --db postgres://…?options=-c%20search_path%3Ds]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insertAuditBatch } from '../server/audit/record.js';
import { verifyChain } from '../server/audit/verify.js';
import { openDb } from '../server/db/open.js';
import { newId } from '../server/ids.js';
import { integerOption, parseOrExit } from '../tooling/cli/command.js';
import { checked } from './support/options.js';
import { cpuModel, loadAverages, resultsFile, writeResults } from './support/report.js';
import { median } from './support/stats.js';

const { values } = parseOrExit({
  name: 'npm run bench:audit-verify --',
  prefix: 'bench:audit-verify',
  summary: 'Times `audit verify` over a chain of ROWS audit rows (default 1,000,000).',
  options: {
    rows: { type: 'string', value: 'N', default: '1000000', description: 'Chained rows.' },
    runs: { type: 'string', value: 'N', default: '2', description: 'Timed walks.' },
    db: { type: 'string', value: 'URL', description: 'Database (default a fresh SQLite file).' },
    out: { type: 'string', value: 'FILE', description: 'Results file.' },
  },
});
const [ROWS, RUNS] = checked(
  'bench:audit-verify',
  () =>
    [
      integerOption('rows', values.rows, { min: 1 }),
      integerOption('runs', values.runs, { min: 1 }),
    ] as const,
);

const dir = mkdtempSync(join(tmpdir(), 'patient-care-bench-verify-'));
const url = values.db ?? `sqlite:${join(dir, 'verify.db')}`;
const db = await openDb(url);
try {
  const loadStart = loadAverages();
  const filling = performance.now();
  const key = newId('key');
  for (let done = 0; done < ROWS; ) {
    const size = Math.min(5000, ROWS - done);
    const at = Date.now();
    const entries = Array.from({ length: size }, (_, i) => ({
      keyId: key,
      operationId: i % 3 === 0 ? 'listPatients' : 'retrievePatient',
      objectIds: i % 3 === 0 ? [newId('pat'), newId('pat'), newId('pat')] : [newId('pat')],
      requestId: newId('req'),
      clientIp: '127.0.0.1',
      outcome: 'success' as const,
      at,
      apiVersion: '2026-12-01',
    }));
    await db.transaction((tx) => insertAuditBatch(tx, entries));
    done += size;
  }
  const fillSeconds = (performance.now() - filling) / 1000;
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = await verifyChain(db);
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    // This process's CPU (hashing, decoding rows; SQLite's reads too): on a shared machine
    // the wall time mostly measures the other processes.
    cpuTimes.push((used.user + used.system) / 1e6);
    if (result.broken !== undefined || result.rows !== ROWS) {
      throw new Error(`verify did not walk an intact chain of ${ROWS}: ${JSON.stringify(result)}`);
    }
    times.push(seconds);
    process.stdout.write(
      `run ${run}: ${ROWS} rows verified in ${seconds.toFixed(2)} s (CPU ${cpuTimes.at(-1)?.toFixed(2)} s)\n`,
    );
  }
  const seconds = median(times);
  writeResults(
    values.out ?? resultsFile('audit-verify.md'),
    [
      `# audit verify over ${ROWS.toLocaleString('en')} rows`,
      '',
      `${db.dialect} (${values.db === undefined ? 'a fresh file' : 'the given database'}), ${cpuModel()}; load at start ${loadStart}, at end ${loadAverages()}.`,
      '',
      '| figure | value |',
      '|---|---|',
      `| rows chained (batches of 5,000 through insertAuditBatch) | ${ROWS.toLocaleString('en')} in ${fillSeconds.toFixed(1)} s |`,
      `| verify, median of ${RUNS} | ${seconds.toFixed(2)} s (${Math.round(ROWS / seconds).toLocaleString('en')} rows/s) |`,
      `| verify, each run | ${times.map((t) => `${t.toFixed(2)} s`).join(', ')} |`,
      `| verify's CPU time in this process, each run | ${cpuTimes.map((t) => `${t.toFixed(2)} s`).join(', ')} |`,
      '',
    ].join('\n'),
  );
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
