/**
 * How big the durability rounds are. The integration tier runs a small version (one crash round
 * of 300 creates per database, two short disk-fault rounds); `npm run test:durability` sets
 * DURABILITY=full for the full bounded run: 3 crash rounds of 1,000 creates per database and
 * 200 creates per disk-fault round. Each figure can also be set alone.
 */

function count(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`${name} must be a whole number ≥ 1, not "${raw}"`);
  }
  return value;
}

const full = process.env.DURABILITY?.trim().toLowerCase() === 'full';

export const durabilitySize = {
  /** Crash rounds per database (DURABILITY_ROUNDS). */
  rounds: count('DURABILITY_ROUNDS', full ? 3 : 1),
  /** Concurrent creates per crash round (DURABILITY_REQUESTS). */
  requests: count('DURABILITY_REQUESTS', full ? 1000 : 300),
  /** Creates in flight at once in a crash round (DURABILITY_CONCURRENCY). */
  concurrency: count('DURABILITY_CONCURRENCY', 100),
  /**
   * Creates per disk-fault round (DURABILITY_FAULT_WRITES); undefined keeps each round's own
   * small figure.
   */
  faultWrites: full ? count('DURABILITY_FAULT_WRITES', 200) : optional('DURABILITY_FAULT_WRITES'),
};

function optional(name: string): number | undefined {
  return process.env[name]?.trim() ? count(name, 1) : undefined;
}
