import type { StatementCache } from './sqlite-statements.js';
import type { SqlParams } from './types.js';

/** One distinct read of a batch and everyone waiting for its answer. */
interface ReadGroup {
  readonly kind: 'get' | 'all';
  readonly sql: string;
  readonly params: SqlParams | undefined;
  readonly waiters: Array<{ resolve(value: unknown): void; reject(error: unknown): void }>;
}

/**
 * Plain reads of the SQLite read connection, gathered over one event loop turn and run
 * together at its end (`setImmediate`, after the turn's I/O callbacks): the whole batch in one
 * read transaction, so the connection takes its locks once per batch instead of once per
 * statement, and a read asked for several times in the batch (same SQL, same parameters) runs
 * once and answers all of them.
 *
 * Nothing is served from the past: every read of a batch was asked for before the batch's
 * snapshot was taken, and is answered from that snapshot, which is at least as new as each
 * caller's request — so a client still reads its own committed writes. Each caller of a
 * shared read gets its own array and row objects.
 */
export class ReadBatcher {
  #groups: Map<string, ReadGroup> | undefined;
  /** Batches and statements run so far, and callers answered by another caller's read. */
  readonly stats = { batches: 0, statements: 0, coalesced: 0 };

  constructor(
    private readonly reader: () => StatementCache,
    private readonly isClosed: () => boolean,
  ) {}

  read<T>(kind: 'get' | 'all', sql: string, params: SqlParams | undefined): Promise<T> {
    let groups = this.#groups;
    if (groups === undefined) {
      groups = new Map();
      this.#groups = groups;
      setImmediate(() => this.#run());
    }
    const key = readKey(kind, sql, params);
    let group = key === undefined ? undefined : groups.get(key);
    if (group === undefined) {
      group = { kind, sql, params, waiters: [] };
      // Reads that cannot be keyed (binary parameters) still join the batch, alone.
      groups.set(key ?? `\u0002${groups.size}`, group);
    }
    const waiters = group.waiters;
    return new Promise<T>((resolve, reject) => {
      waiters.push({ resolve: resolve as (value: unknown) => void, reject });
    });
  }

  #run(): void {
    const groups = this.#groups;
    this.#groups = undefined;
    if (groups === undefined) return;
    if (this.isClosed()) {
      rejectAll(groups, new Error('database is closed'));
      return;
    }
    let reader: StatementCache;
    // One snapshot for the batch: a deferred BEGIN takes the read lock at the first SELECT.
    const together = groups.size > 1;
    try {
      reader = this.reader();
      if (together) reader.connection.exec('BEGIN');
    } catch (error) {
      rejectAll(groups, error);
      return;
    }
    for (const group of groups.values()) answer(reader, group);
    if (together) {
      try {
        reader.connection.exec('COMMIT');
      } catch {
        // Only reads ran: nothing to keep. Leave no transaction open on the connection.
        if (reader.connection.inTransaction) reader.connection.exec('ROLLBACK');
      }
    }
    this.stats.batches++;
    this.stats.statements += groups.size;
    for (const group of groups.values()) this.stats.coalesced += group.waiters.length - 1;
  }
}

function rejectAll(groups: Map<string, ReadGroup>, error: unknown): void {
  for (const group of groups.values()) for (const waiter of group.waiters) waiter.reject(error);
}

function answer(reader: StatementCache, group: ReadGroup): void {
  let result: unknown;
  try {
    result =
      group.kind === 'all'
        ? reader.all(group.sql, group.params)
        : reader.get(group.sql, group.params);
  } catch (error) {
    for (const waiter of group.waiters) waiter.reject(error);
    return;
  }
  const [first, ...others] = group.waiters;
  first?.resolve(result);
  // The others get copies (a row is a flat object of column values): what one caller does with
  // its rows can never show in another's.
  for (const waiter of others) {
    waiter.resolve(
      Array.isArray(result)
        ? result.map(copyRow)
        : result === undefined
          ? undefined
          : copyRow(result),
    );
  }
}

/** A caller's own copy of a shared row (a flat object of column values). */
export function copyRow(row: unknown): unknown {
  return { ...(row as Record<string, unknown>) };
}

/**
 * What identifies a read: kind, SQL text and each parameter with its type and length, so two
 * different parameter lists can never give the same key. Undefined for binary parameters.
 */
export function readKey(
  kind: string,
  sql: string,
  params: SqlParams | undefined,
): string | undefined {
  let key = `${kind}\u0000${sql}`;
  if (params === undefined) return key;
  for (const value of params) {
    if (typeof value === 'string') key += `\u0000s${value.length}:${value}`;
    else if (value === null || value === undefined) key += '\u0000n';
    else if (typeof value === 'object') return undefined;
    else key += `\u0000${typeof value}:${String(value)}`;
  }
  return key;
}
