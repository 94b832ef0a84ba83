/**
 * Storage figures on this machine (SQLite file in a temp dir, WAL, synchronous=FULL):
 * single-row commits per second, rate-limit takes per second (non-durable commits), and
 * audit entries per second through the group-committing AuditWriter. Each phase runs for a
 * bounded time; results go to bench/results/db.md.
 *
 *   npx tsx bench/db.ts [seconds-per-phase]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AuditWriter } from '../server/audit/index.js';
import { openDb } from '../server/db/open.js';
import { newId } from '../server/ids.js';
import { takeToken } from '../server/repos/rate-limits.js';
import { integerOption, parseOrExit } from '../tooling/cli/command.js';
import { checked } from './support/options.js';
import { loadAverages, markdownTable, resultsFile, writeResults } from './support/report.js';

const { positionals } = parseOrExit({
  name: 'npx tsx bench/db.ts',
  prefix: 'bench/db',
  summary:
    'Storage figures: single-row commits, rate-limit takes and audit entries per second on a SQLite file; results to bench/results/db.md.',
  options: {},
  positionals: '[seconds-per-phase]',
});
const seconds = checked('bench/db', () =>
  integerOption('seconds-per-phase', positionals[0] ?? '2', { min: 1, max: 600 }),
);
const dir = mkdtempSync(join(tmpdir(), 'patient-care-bench-'));
const db = await openDb(`sqlite:${join(dir, 'bench.db')}`);

async function phase(name: string, step: () => Promise<number>): Promise<string[]> {
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  let count = 0;
  while (performance.now() < end) count += await step();
  const rate = Math.round(count / ((performance.now() - start) / 1000));
  return [name, `${rate.toLocaleString('en-US')} /s`];
}

try {
  const rows: string[][] = [];
  const loadStart = loadAverages();
  // Baseline: the bare driver on its own file, so the adapter's cost can be told from the disk's.
  const raw = new Database(join(dir, 'raw.db'));
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.exec('CREATE TABLE t (x INTEGER)');
  const insert = raw.prepare('INSERT INTO t VALUES (1)');
  rows.push(
    await phase('bare better-sqlite3 autocommit INSERT (baseline, synchronous=FULL)', async () => {
      insert.run();
      return 1;
    }),
  );
  raw.close();
  rows.push(
    await phase('durable commits (one INSERT per transaction, synchronous=FULL)', async () => {
      await db.transaction((tx) =>
        tx.run(
          `INSERT INTO idempotency_keys (namespace, livemode, idempotency_key, request_hash, state,
            created_at, locked_at) VALUES ('account', 0, $1, 'h', 'running', 0, 0)`,
          [newId('req')],
        ),
      );
      return 1;
    }),
  );
  let now = Date.now();
  rows.push(
    await phase('rate-limit takeToken (non-durable commit)', async () => {
      await takeToken(db, {
        bucketKey: 'key:bench',
        capacity: 1e9,
        refillPerSecond: 1e9,
        nowMs: now++,
      });
      return 1;
    }),
  );
  const writer = new AuditWriter(db, { intervalMs: 5, maxBatch: 500 });
  const patient = newId('pat');
  rows.push(
    await phase('audit entries via AuditWriter (group commit every 5 ms)', async () => {
      for (let i = 0; i < 100; i++) {
        writer.push({
          keyId: 'key_01M80HGE0X35Z1D63FQN94B405',
          operationId: 'retrievePatient',
          objectIds: [patient],
          requestId: newId('req'),
          clientIp: '127.0.0.1',
          outcome: 'success',
        });
      }
      // Let the writer's timer run, as a server's event loop would between requests.
      await new Promise((resolve) => setImmediate(resolve));
      if (writer.pending > 5000) await writer.flush();
      return 100;
    }),
  );
  await writer.close();
  const report = [
    '# Storage benchmark (bench/db.ts)',
    '',
    `Command: \`npx tsx bench/db.ts ${seconds}\` — SQLite file, WAL, synchronous=FULL, ${seconds} s per phase, Node ${process.version}; 1/5/15-min load average at start ${loadStart}, at end ${loadAverages()}.`,
    '',
    markdownTable(['phase', 'rate'], rows),
    '',
  ].join('\n');
  writeResults(resultsFile('db.md'), report);
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
