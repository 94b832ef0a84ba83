import { copyRow, readKey } from './read-batch.js';
import type { SqlParams } from './types.js';

/** One distinct read of a turn and everyone waiting for its rows. */
interface Group {
  readonly sql: string;
  readonly params: SqlParams | undefined;
  readonly waiters: Array<{ resolve(rows: unknown[]): void; reject(error: unknown): void }>;
}

// Plain SELECTs only: no row locks, no functions with effects (advisory locks, sequences,
// settings). Anything else runs as asked, once per caller.
const SHAREABLE = /^\s*select\b/i;
const EFFECTS =
  /\bfor\s+(update|share|no\s+key|key\s+share)\b|\bpg_\w+\s*\(|\b(nextval|setval|set_config)\s*\(/i;

/**
 * Identical plain reads on the PostgreSQL pool (same SQL, same parameters) asked during one
 * event loop turn are sent once, at the turn's end (`setImmediate`), and every caller gets
 * its own copy of the rows — the same rule as SQLite's `ReadBatcher` (read-batch.ts): each
 * read is sent after every caller sharing it asked, so its snapshot is at least as new as
 * each caller's request and a client still reads its own acknowledged writes. The cost: every
 * shareable read waits for the end of the turn it was asked in (microseconds at rest).
 *
 * Measured with `npm run bench:server -- --db postgres://…` (bench/results/server-postgres-issue-33.md):
 * a busy list page asked by 50 clients at once is one query per turn instead of one per client.
 */
export class PgSharedReads {
  #groups: Map<string, Group> | undefined;
  readonly stats = { statements: 0, coalesced: 0 };

  constructor(
    private readonly send: (sql: string, params: SqlParams | undefined) => Promise<unknown[]>,
  ) {}

  /** Whether `sql` may be answered from another caller's identical read. */
  static shareable(sql: string): boolean {
    return SHAREABLE.test(sql) && !EFFECTS.test(sql);
  }

  all(sql: string, params: SqlParams | undefined): Promise<unknown[]> {
    const key = readKey('all', sql, params);
    if (key === undefined) return this.#count(this.send(sql, params));
    let groups = this.#groups;
    if (groups === undefined) {
      groups = new Map();
      this.#groups = groups;
      setImmediate(() => this.#flush());
    }
    let group = groups.get(key);
    if (group === undefined) {
      group = { sql, params, waiters: [] };
      groups.set(key, group);
    }
    const waiters = group.waiters;
    return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
  }

  #count<T>(sent: Promise<T>): Promise<T> {
    this.stats.statements++;
    return sent;
  }

  #flush(): void {
    const groups = this.#groups;
    this.#groups = undefined;
    if (groups === undefined) return;
    for (const group of groups.values()) {
      this.stats.coalesced += group.waiters.length - 1;
      this.#count(this.send(group.sql, group.params)).then(
        (rows) => {
          const [first, ...others] = group.waiters;
          first?.resolve(rows);
          for (const waiter of others) waiter.resolve(rows.map(copyRow));
        },
        (error: unknown) => {
          for (const waiter of group.waiters) waiter.reject(error);
        },
      );
    }
  }
}
