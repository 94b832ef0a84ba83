/**
 * On record before the answer leaves: `kill -9` of the service under concurrent reads, then
 * every read that was answered 200 has its audit row (found by the request id the answer
 * carried), on both databases, and the hash chain is intact after the crash.
 */
import { describe, expect, it } from 'vitest';
import { verifyChain } from '../../server/audit/verify.js';
import { connect } from '../../server/db/open.js';
import type { Dialect } from '../../server/db/types.js';
import { freshDatabase, POSTGRES_URL, postgresReachable } from './support/fresh-database.js';
import { runPool } from './support/pool.js';
import { startService } from './support/service-process.js';

const pg = await postgresReachable();
if (!pg) console.warn(`NOTICE: PostgreSQL not reachable at ${POSTGRES_URL}; crash test skipped.`);

const cases: Array<{ dialect: Dialect; available: boolean }> = [
  { dialect: 'sqlite', available: true },
  { dialect: 'postgres', available: pg },
];

const READS = 2000;
const CONCURRENCY = 24;

describe.each(cases)('kill -9 during concurrent reads [$dialect]', ({ dialect, available }) => {
  it.skipIf(!available)(
    'every read answered 200 has its audit row, and the chain is intact',
    { timeout: 180_000 },
    async () => {
      const database = await freshDatabase(dialect);
      const service = await startService({ databaseUrl: database.url, env: { WORKER: 'off' } });
      try {
        const key = service.printedKey;
        if (key === null) throw new Error(`no key printed:\n${service.output()}`);
        const auth = { authorization: `Bearer ${key}` };
        const patients: string[] = [];
        for (let i = 0; i < 4; i++) {
          const res = await fetch(`${service.baseUrl}/v1/patients`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ name: { family: `Reader${i}` } }),
          });
          patients.push(((await res.json()) as { id: string }).id);
        }
        // Kill somewhere in the middle of the reads, once some were answered.
        const killAt = 150 + Math.floor(Math.random() * 300);
        const answered: string[] = [];
        let killing: Promise<void> | undefined;
        await runPool(READS, CONCURRENCY, async (i) => {
          if (killing) return;
          const url =
            i % 3 === 0
              ? `${service.baseUrl}/v1/patients?limit=10`
              : `${service.baseUrl}/v1/patients/${patients[i % patients.length]}`;
          try {
            const res = await fetch(url, { headers: auth });
            await res.arrayBuffer();
            if (res.status === 200) {
              answered.push(res.headers.get('request-id') ?? 'missing');
              if (answered.length >= killAt && !killing) killing = service.kill9();
            }
          } catch {
            // The process died with this read in flight: no answer, nothing to check.
          }
        });
        await (killing ?? service.kill9());

        const db = connect(database.url);
        try {
          const rows = await db.all<{ request_id: string }>(
            `SELECT request_id FROM audit_log
              WHERE operation_id IN ('retrievePatient', 'listPatients')`,
          );
          const recorded = new Set(rows.map((row) => row.request_id));
          const missing = answered.filter((id) => !recorded.has(id));
          console.log(
            `[${dialect}] reads answered 200 before the kill: ${answered.length}; audit rows of reads: ${rows.length}; answered without a row: ${missing.length}`,
          );
          expect(answered.length).toBeGreaterThanOrEqual(killAt);
          expect(missing).toEqual([]);
          // Rows may outnumber answers: a batch can commit with the answers still unsent.
          expect(rows.length).toBeGreaterThanOrEqual(answered.length);
          expect((await verifyChain(db)).broken).toBeUndefined();
        } finally {
          await db.close();
        }
      } finally {
        await service.kill9().catch(() => {});
        await database.dispose();
      }
    },
  );
});
