/**
 * Crash durability, small version: one round per database of 300 concurrent
 * creates, `kill -9` mid-way, restart, then no acknowledged patient lost, integrity check
 * `ok`, and retries with the same Idempotency-Keys create no duplicates. `npm run
 * test:durability` runs the full 1,000 × 3 rounds (`scripts/durability.ts`).
 */
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../server/db/types.js';
import { formatFigures, runCrashRound } from './support/crash-round.js';
import { POSTGRES_URL, postgresReachable } from './support/fresh-database.js';

const pg = await postgresReachable();
if (!pg) console.warn(`NOTICE: PostgreSQL not reachable at ${POSTGRES_URL}; crash test skipped.`);

const cases: Array<{ dialect: Dialect; available: boolean }> = [
  { dialect: 'sqlite', available: true },
  { dialect: 'postgres', available: pg },
];

describe.each(cases)('kill -9 during concurrent creates [$dialect]', ({ dialect, available }) => {
  // PostgreSQL rounds wait out the 60 s after which a dead writer's `running` record is stale.
  it.skipIf(!available)(
    'loses nothing acknowledged and duplicates nothing on retry',
    {
      timeout: 240_000,
    },
    async () => {
      const figures = await runCrashRound({ dialect, requests: 300, concurrency: 100 });
      console.log(formatFigures(figures));
      expect(figures.problems).toEqual([]);
      expect(figures.acknowledged).toBeGreaterThan(0);
      // The kill must land mid-way, or the round proves nothing about in-flight requests.
      expect(figures.unacknowledged).toBeGreaterThan(0);
      expect(figures.lost).toBe(0);
      expect(figures.duplicates).toBe(0);
      expect(figures.integrity).toBe('ok');
      expect(figures.keysSucceeded).toBe(300);
      expect(figures.rowsWithMarker).toBe(300);
    },
  );
});
