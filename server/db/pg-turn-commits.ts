/** Cross-transaction group commit on PostgreSQL (`TurnCommits`). */
import type pg from 'pg';
import { DbError } from './errors.js';
import {
  checkCounts,
  checkedInStatement,
  combineTransactions,
  type Deferred,
  type HeldTransaction,
  heldShape,
} from './pg-combine.js';
import { sendDeferred } from './pg-held-writes.js';
import { query } from './pg-query.js';
import { combinedParts } from './pg-shared-reads.js';

/** A transaction waiting to commit its one statement with others of the turn. */
interface PendingCommit extends HeldTransaction {
  readonly client: pg.PoolClient;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Transactions that are one statement each (never begun: their held writes, `combine`),
 * committed at the end of the turn they finished in as one statement with those of the same
 * shape (at most `MAX_COMBINED`, `combinedParts`), sent on the first one's connection: one
 * socket write and one WAL flush for several creates instead of one each. Each transaction's writes are `WITH` queries of
 * their own and each keeps its own in-statement check (the division by zero), so any
 * failure fails the whole statement, and nothing of it has committed. Then each transaction
 * is sent again alone on its own connection, as it would have been, and gets its own answer:
 * one transaction's refusal (a unique value, a completed idempotency key) is never another's.
 * A lost connection is not retried: whether the statement committed is unknown, as it is for
 * one transaction's statement, and every transaction of it gets that error.
 *
 * Held writes are plain INSERTs of new rows and each request's own idempotency record (see
 * `runDeferred`), so two transactions of one statement never write the same row unseen: an
 * idempotency record written twice fails its count check.
 */
export class TurnCommits {
  #pending: PendingCommit[] | undefined;
  /** Transactions committed (`reads`, as `PgSharedReads` counts) and statements sent for them. */
  readonly stats = { statements: 0, reads: 0 };

  commit(client: pg.PoolClient, batch: readonly Deferred[]): Promise<void> {
    let pending = this.#pending;
    if (pending === undefined) {
      pending = [];
      this.#pending = pending;
      setImmediate(() => this.#flush());
    }
    const list = pending;
    const checked = checkedInStatement(batch);
    const shape = heldShape(batch, checked);
    return new Promise((resolve, reject) =>
      list.push({ client, batch, checked, shape, resolve, reject }),
    );
  }

  #flush(): void {
    const pending = this.#pending ?? [];
    this.#pending = undefined;
    // Only transactions of one shape (the same statements, the same one checked) share a
    // statement, so its text is one of a bounded set (a shape, a count up to 8) and can be
    // a prepared statement like any other. Unnamed, a text per order and mix of shapes, each
    // parsed and planned afresh, cost PostgreSQL 0.06 of a core more and 9% of the POST
    // throughput (three pairs on this machine).
    for (const part of combinedParts(pending, (commit) => commit.shape)) {
      if (part.length === 1) this.#alone(part[0] as PendingCommit);
      else {
        this.#together(part).catch((error: unknown) => {
          for (const commit of part) commit.reject(error);
        });
      }
    }
  }

  #alone(commit: PendingCommit): void {
    this.stats.statements++;
    this.stats.reads++;
    sendDeferred(commit.client, commit.batch).then(commit.resolve, commit.reject);
  }

  async #together(part: readonly PendingCommit[]): Promise<void> {
    const { sql, params } = combineTransactions(part);
    this.stats.statements++;
    let rows: Record<string, unknown>[];
    try {
      rows = (await query(part[0]?.client as pg.PoolClient, sql, params)).rows;
    } catch (err) {
      if (err instanceof DbError && err.code === 'connection') {
        for (const commit of part) commit.reject(err);
        return;
      }
      for (const commit of part) this.#alone(commit);
      return;
    }
    this.stats.reads += part.length;
    for (const [i, commit] of part.entries()) {
      const row = rows.find((r) => Number(r.pc_tx) === i);
      try {
        checkCounts(commit.batch, ((row?.counts as number[] | undefined) ?? []).map(Number));
        commit.resolve();
      } catch (error) {
        commit.reject(error);
      }
    }
  }
}
