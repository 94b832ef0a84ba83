/**
 * CPU per read-audit entry of the thread writer's transaction (server/audit/thread-writer.ts),
 * before and after migration 0002: the same statements on a better-sqlite3 connection with
 * the thread's pragmas, on a real migrated schema in a temp dir. Batches of 200 entries of
 * `listPatients` reading 10 patients: the same 10 in every entry (a busy list page), and 10
 * different ones per entry (the worst case for the per-batch index). CPU time
 * (process.cpuUsage), not wall time: the machine is shared. Median of the repetitions (the
 * mean of the two middle ones for an even count, bench/support/stats.ts).
 *
 *   npx tsx bench/audit.ts [repetitions]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from '../server/db/migrate.js';
import { initial } from '../server/db/migrations/0001-initial.js';
import { migrations } from '../server/db/migrations/index.js';
import { connect } from '../server/db/open.js';
import { newId } from '../server/ids.js';
import { integerOption, parseOrExit } from '../tooling/cli/command.js';
import { checked } from './support/options.js';
import { loadAverages, markdownTable } from './support/report.js';
import { median } from './support/stats.js';

const { positionals } = parseOrExit({
  name: 'npx tsx bench/audit.ts',
  prefix: 'bench/audit',
  summary: 'CPU per read-audit entry of the thread writer, before and after migration 0002.',
  options: {},
  positionals: '[repetitions]',
});
const repetitions = checked('bench/audit', () =>
  integerOption('repetitions', positionals[0] ?? '5', { min: 1, max: 1000 }),
);
const BATCH = 200;
const WARM_BATCHES = 20;
const BATCHES = 100;
const OBJECTS = 10;

interface Row {
  id: string;
  at: number;
  keyId: string;
  operationId: string;
  requestId: string;
  clientIp: string;
  outcome: string;
  objectIds: string[];
  objectIdsJson: string;
}

function batches(count: number, sameObjects: boolean): Row[][] {
  const same = Array.from({ length: OBJECTS }, () => newId('pat'));
  const keyId = newId('key');
  return Array.from({ length: count }, () =>
    Array.from({ length: BATCH }, () => {
      const objectIds = sameObjects ? same : Array.from({ length: OBJECTS }, () => newId('pat'));
      return {
        id: newId('aud'),
        at: Date.now(),
        keyId,
        operationId: 'listPatients',
        requestId: newId('req'),
        clientIp: '127.0.0.1',
        outcome: 'success',
        objectIds,
        objectIdsJson: JSON.stringify(objectIds),
      };
    }),
  );
}

/** Returns how one batch is stored: the thread's transaction, before or after 0002. */
function storer(db: Database.Database, after: boolean): (rows: Row[]) => void {
  if (!after) {
    const insertLog = db.prepare(
      'INSERT INTO audit_log (id, at, key_id, operation_id, request_id, client_ip, outcome, object_ids) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const insertObject = db.prepare(
      'INSERT INTO audit_objects (object_id, audit_id) VALUES (?, ?)',
    );
    return db.transaction((rows: Row[]) => {
      for (const r of rows) {
        insertLog.run(
          r.id,
          r.at,
          r.keyId,
          r.operationId,
          r.requestId,
          r.clientIp,
          r.outcome,
          r.objectIdsJson,
        );
        for (const objectId of r.objectIds) insertObject.run(objectId, r.id);
      }
    });
  }
  const insertLog = db.prepare(
    'INSERT INTO audit_log (id, at, key_id, operation_id, request_id, client_ip, outcome, object_ids, batch_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insertObject = db.prepare(
    'INSERT INTO audit_batch_objects (object_id, batch_id) VALUES (?, ?)',
  );
  const store = db.transaction((batchId: string, rows: Row[], objectIds: string[]) => {
    for (const r of rows) {
      insertLog.run(
        r.id,
        r.at,
        r.keyId,
        r.operationId,
        r.requestId,
        r.clientIp,
        r.outcome,
        r.objectIdsJson,
        batchId,
      );
    }
    for (const objectId of objectIds) insertObject.run(objectId, batchId);
  });
  return (rows) => {
    // Counted too: the writer builds the batch's distinct set (on the main thread).
    const objectIds = new Set<string>();
    for (const r of rows) for (const objectId of r.objectIds) objectIds.add(objectId);
    store(newId('audb'), rows, [...objectIds]);
  };
}

async function once(after: boolean, sameObjects: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'patient-care-bench-audit-'));
  try {
    const file = join(dir, 'audit.db');
    const schema = connect(`sqlite:${file}`);
    await migrate(schema, after ? migrations : [initial]);
    await schema.close();
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    const store = storer(db, after);
    const all = batches(WARM_BATCHES + BATCHES, sameObjects);
    for (const rows of all.slice(0, WARM_BATCHES)) store(rows);
    const start = process.cpuUsage();
    for (const rows of all.slice(WARM_BATCHES)) store(rows);
    const cpu = process.cpuUsage(start);
    db.close();
    return (cpu.user + cpu.system) / (BATCHES * BATCH);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const cases = [
  { name: 'same 10 objects per entry', sameObjects: true },
  { name: '10 different objects per entry', sameObjects: false },
];
const results = new Map<string, number[]>();
const loadStart = loadAverages();
for (let r = 0; r < repetitions; r++) {
  for (const c of cases) {
    for (const after of [false, true]) {
      const key = `${c.name} | ${after ? 'after (0002)' : 'before'}`;
      results.set(key, [...(results.get(key) ?? []), await once(after, c.sameObjects)]);
    }
  }
}
console.log(
  markdownTable(
    ['workload', 'schema', `CPU µs per entry, median (min–max) of ${repetitions}`],
    [...results].map(([key, values]) => [
      ...key.split(' | '),
      `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`,
    ]),
  ),
);
console.log(`\n1/5/15-min load average at start ${loadStart}, at end ${loadAverages()}.`);
