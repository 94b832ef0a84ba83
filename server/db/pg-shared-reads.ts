import { shiftPlaceholders } from './placeholders.js';
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
 * Distinct reads of one SQL text sent as one statement (and claims, and one-statement
 * transactions: `TurnCommits` in pg-turn-commits.ts): at most this many in one, so a busy turn's
 * statements still spread over several PostgreSQL backends (bench:server (b′): 25–26% of the
 * bare route with 8, 23–25% with 32; one run each, inside the spread).
 */
export const MAX_COMBINED = 8;
/** A `$` that is not a placeholder (a literal, dollar quoting): such text is never combined. */
const OTHER_DOLLAR = /\$(?!\d)/;
/**
 * Combined texts by SQL text and size, made once. Built anew, with its statement name's hash
 * of the new string, each took 1.25 µs per request under bench:server (b′) (`--cpu-prof`, 94 ms
 * over 75,000 requests); cached, 0.07 µs.
 * Bounded as the prepared statements they name are: by the code's SQL texts, times
 * `MAX_COMBINED`.
 */
const combinedTexts = new Map<string, Map<number, string>>();
/** The columns a combined statement adds to each row: which read it answers, and its place. */
const READ_COLUMN = 'pc_batch_read';
const ORDER_COLUMN = 'pc_batch_order';
/**
 * Writes that may share a statement: an INSERT that skips conflicting rows and says which it
 * inserted (an idempotency claim). Each branch is its own INSERT, so two claims of one key in
 * one statement still end with exactly one inserted, and each caller learns its own outcome.
 * Not `DO UPDATE`: two branches updating one row in a statement is not something PostgreSQL
 * promises to do both of.
 */
const COMBINABLE_WRITE =
  /^\s*insert\b[^;]*\bon\s+conflict\b[^;]*\bdo\s+nothing\b[^;]*\breturning\b[^;]*$/i;

/**
 * `items` as the statements a turn sends: those with the same `keyOf` (the same SQL text, the
 * same shape) together, at most `MAX_COMBINED` to a part, in the order first asked. A part of
 * one is sent as it is.
 */
export function combinedParts<T>(items: Iterable<T>, keyOf: (item: T) => string): T[][] {
  const byKey = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const same = byKey.get(key);
    if (same === undefined) byKey.set(key, [item]);
    else same.push(item);
  }
  const parts: T[][] = [];
  for (const same of byKey.values()) {
    for (let start = 0; start < same.length; start += MAX_COMBINED) {
      parts.push(same.slice(start, start + MAX_COMBINED));
    }
  }
  return parts;
}

/**
 * Plain reads on the PostgreSQL pool asked during one event loop turn are sent together at
 * the turn's end (`setImmediate`):
 *
 * - identical reads (same SQL, same parameters) are sent once, and every caller gets its own
 *   copy of the rows — the same rule as SQLite's `ReadBatcher` (read-batch.ts);
 * - distinct reads of the same SQL text (a list page with each client's own bound) go as one
 *   statement, each read a `WITH` query with its own parameters, its rows tagged with the read
 *   and their place in it and gathered by `UNION ALL` (`combinedText`). Each read sent on its
 *   own cost the service a socket write to PostgreSQL (the `writev` of node-postgres: 60 µs of
 *   its 156 µs CPU per request under bench:server's (b′), `--cpu-prof`) and PostgreSQL a round
 *   of parse-bind-execute. Should the combined statement fail, each read is sent again on its
 *   own, so one caller's bad value is that caller's error alone.
 *
 * The same machinery combines idempotency claims (`writes`, `combinableWrite`): each is a
 * `WITH` query of its own, none is shared with an identical one, and a combined statement is
 * one implicit transaction on the one-statement pool, so when it fails nothing of it
 * committed and each claim can be sent again alone.
 *
 * Each read is sent after every caller sharing it asked, so its snapshot is at least as new as
 * each caller's request and a client still reads its own acknowledged writes. The cost: every
 * shareable read waits for the end of the turn it was asked in (microseconds at rest).
 *
 * Measured with `npm run bench:server -- --db postgres://…` (bench/results/server-postgres-issue-33.md):
 * a busy list page asked by 50 clients at once is one query per turn instead of one per client.
 */
export class PgSharedReads {
  #groups: Map<string, Group> | undefined;
  /** Statements asked so far: each write's own key. */
  #asked = 0;
  /**
   * Statements sent, distinct reads they answered (more than statements when reads were
   * combined), and callers answered by another caller's identical read.
   */
  readonly stats = { statements: 0, reads: 0, coalesced: 0 };

  readonly #writes: boolean;

  /**
   * `send` runs one statement. `writes`: the statements are writes (`combinableWrite`), each
   * of which must run, so identical ones are not shared; combining still applies.
   */
  constructor(
    private readonly send: (sql: string, params: SqlParams | undefined) => Promise<unknown[]>,
    options: { writes?: boolean } = {},
  ) {
    this.#writes = options.writes ?? false;
  }

  /** Whether `sql` may be answered from another caller's identical read. */
  static shareable(sql: string): boolean {
    return SHAREABLE.test(sql) && !EFFECTS.test(sql);
  }

  /** Whether `sql` may be combined with others of its text though it writes (see `writes`). */
  static combinableWrite(sql: string): boolean {
    return COMBINABLE_WRITE.test(sql);
  }

  /**
   * The statement answering `count` statements of `sql` (each with `width` parameters, their
   * lists concatenated): branch `i` is `sql` with its placeholders moved up by `i * width`, as a
   * `WITH` query of its own (a data-modifying one too); rows come back tagged with their
   * branch and their place in it, in that order.
   */
  static combinedText(sql: string, count: number, width: number): string {
    let bySize = combinedTexts.get(sql);
    if (bySize === undefined) {
      bySize = new Map();
      combinedTexts.set(sql, bySize);
    }
    const size = count * 65_536 + width;
    let text = bySize.get(size);
    if (text === undefined) {
      const queries: string[] = [];
      const selects: string[] = [];
      for (let i = 0; i < count; i++) {
        queries.push(`pc_batch_${i} AS (${shiftPlaceholders(sql, i * width)})`);
        selects.push(
          `SELECT ${i} AS ${READ_COLUMN}, row_number() OVER () AS ${ORDER_COLUMN}, pc_batch_${i}.* FROM pc_batch_${i}`,
        );
      }
      text = `WITH ${queries.join(', ')} ${selects.join(' UNION ALL ')} ORDER BY ${READ_COLUMN}, ${ORDER_COLUMN}`;
      bySize.set(size, text);
    }
    return text;
  }

  all(sql: string, params: SqlParams | undefined): Promise<unknown[]> {
    const key = this.#writes ? `\u0001${this.#asked++}` : readKey('all', sql, params);
    if (key === undefined) return this.#sendOne(sql, params);
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

  #sendOne(sql: string, params: SqlParams | undefined): Promise<unknown[]> {
    this.stats.statements++;
    this.stats.reads++;
    return this.send(sql, params);
  }

  #flush(): void {
    const groups = this.#groups;
    this.#groups = undefined;
    if (groups === undefined) return;
    for (const group of groups.values()) this.stats.coalesced += group.waiters.length - 1;
    // Distinct reads by SQL text, in the order they were first asked.
    for (const part of combinedParts(groups.values(), (group) => group.sql)) {
      const [first] = part;
      if (part.length === 1 || first === undefined || OTHER_DOLLAR.test(first.sql)) {
        for (const group of part) this.#answerOne(group);
      } else this.#answerCombined(first.sql, part);
    }
  }

  #answerOne(group: Group): void {
    this.#sendOne(group.sql, group.params).then(
      (rows) => resolveGroup(group, rows),
      (error: unknown) => {
        for (const waiter of group.waiters) waiter.reject(error);
      },
    );
  }

  #answerCombined(sql: string, part: readonly Group[]): void {
    const width = part[0]?.params?.length ?? 0;
    if (part.some((group) => (group.params?.length ?? 0) !== width)) {
      for (const group of part) this.#answerOne(group);
      return;
    }
    const params = part.flatMap((group) => group.params ?? []);
    this.stats.statements++;
    this.send(PgSharedReads.combinedText(sql, part.length, width), params).then(
      (rows) => {
        this.stats.reads += part.length;
        const answers: unknown[][] = part.map(() => []);
        for (const row of rows as Record<string, unknown>[]) {
          const { [READ_COLUMN]: read, [ORDER_COLUMN]: _order, ...own } = row;
          answers[read as number]?.push(own);
        }
        for (const [i, group] of part.entries()) resolveGroup(group, answers[i] as unknown[]);
      },
      () => {
        // One read's value may be what failed: each is asked again on its own.
        for (const group of part) this.#answerOne(group);
      },
    );
  }
}

function resolveGroup(group: Group, rows: unknown[]): void {
  const [first, ...others] = group.waiters;
  first?.resolve(rows);
  for (const waiter of others) waiter.resolve(rows.map(copyRow));
}
