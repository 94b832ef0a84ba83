/**
 * Disk faults: the service under libfiu (`fiu-run -x`), failing a share of SQLite's `pwrite64`
 * calls, then of its `fsync`/`fdatasync` calls, for a batch of creates (a small one by default,
 * 200 with `npm run test:durability`; support/size.ts). Every failed create is the bare documented 500; faults really fire; nothing
 * acknowledged is lost (fault off, then kill -9 and restart); the service keeps serving;
 * retries create no duplicates. Skipped with a notice where `fiu-utils` is not installed.
 * PostgreSQL is not covered here: its I/O happens in the database server's processes.
 */
import { describe, expect, it } from 'vitest';
import { fiuAvailable, formatFaultFigures, runFaultRound } from './support/fault-round.js';
import { durabilitySize } from './support/size.js';

const fiu = await fiuAvailable();
if (!fiu) {
  console.warn(
    'NOTICE: fiu-run/fiu-ctrl not installed (Debian fiu-utils); disk-fault test skipped.',
  );
}

const rounds = [
  {
    name: 'failing writes (pwrite)',
    points: ['posix/io/rw/pwrite'],
    probability: 0.015,
    writes: 30,
  },
  {
    // Group commit makes one sync serve several creates: 30 creates at 5 at a time made only a
    // handful of syncs, and at 20% the fault sometimes never fired (CI failed once this way;
    // locally 1–14 of 30 failed per run). 80 creates at 35%: 19–29 of 80 failed in 8 runs.
    name: 'failing syncs (fsync, fdatasync)',
    points: ['posix/io/sync/fsync', 'posix/io/sync/fdatasync'],
    probability: 0.35,
    writes: 80,
  },
];

describe.skipIf(!fiu)('disk faults under libfiu [sqlite]', () => {
  // A create that failed after claiming its key, whose release failed too, holds the key for
  // the 60 s a `running` record takes to go stale; the round waits that out.
  it.each(rounds)(
    '$name: documented 500s, nothing acknowledged lost, serves after',
    {
      timeout: 240_000 + (durabilitySize.faultWrites ?? 0) * 1_000,
    },
    async ({ points, probability, writes }) => {
      const figures = await runFaultRound({
        points,
        probability,
        writes: durabilitySize.faultWrites ?? writes,
        concurrency: 5,
      });
      console.log(formatFaultFigures(figures));
      expect(figures.problems).toEqual([]);
      expect(figures.failed).toBeGreaterThan(0);
      expect(figures.acknowledged).toBeGreaterThan(0);
      expect(figures.lostAfterFault).toBe(0);
      expect(figures.lostAfterRestart).toBe(0);
      expect(figures.servedAfterFault).toBe(figures.servedAfterFaultOf);
      expect(figures.duplicates).toBe(0);
      expect(figures.integrity).toBe('ok');
    },
  );
});
