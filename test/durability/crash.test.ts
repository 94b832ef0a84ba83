/**
 * Crash durability: rounds of concurrent creates per database, `kill -9` mid-way, restart, then
 * no acknowledged patient lost, integrity check `ok`, and retries with the same
 * Idempotency-Keys create no duplicates. One round of 300 creates per database by default;
 * `npm run test:durability` runs 3 rounds of 1,000 (support/size.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../server/db/types.js';
import { formatFigures, runCrashRound } from './support/crash-round.js';
import { POSTGRES_URL, postgresReachable } from './support/fresh-database.js';
import { durabilitySize } from './support/size.js';

const pg = await postgresReachable();
if (!pg) console.warn(`NOTICE: PostgreSQL not reachable at ${POSTGRES_URL}; crash test skipped.`);

const { rounds, requests, concurrency } = durabilitySize;
const cases: Array<{ dialect: Dialect; available: boolean }> = [
  { dialect: 'sqlite', available: true },
  { dialect: 'postgres', available: pg },
];
const roundNumbers = Array.from({ length: rounds }, (_, i) => i + 1);

describe.each(cases)('kill -9 during concurrent creates [$dialect]', ({ dialect, available }) => {
  // PostgreSQL rounds wait out the 60 s after which a dead writer's `running` record is stale.
  it.skipIf(!available).each(roundNumbers)(
    `round %i of ${rounds}: ${requests} creates lose nothing acknowledged, duplicate nothing on retry`,
    {
      timeout: 120_000 + requests * 400,
    },
    async (round) => {
      const figures = await runCrashRound({ dialect, requests, concurrency });
      console.log(formatFigures(figures, round));
      expect(figures.problems).toEqual([]);
      expect(figures.acknowledged).toBeGreaterThan(0);
      // The kill must land mid-way, or the round proves nothing about in-flight requests.
      expect(figures.unacknowledged).toBeGreaterThan(0);
      expect(figures.lost).toBe(0);
      expect(figures.duplicates).toBe(0);
      expect(figures.integrity).toBe('ok');
      expect(figures.keysSucceeded).toBe(requests);
      expect(figures.rowsWithMarker).toBe(requests);
    },
  );
});
