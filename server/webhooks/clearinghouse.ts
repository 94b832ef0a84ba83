/**
 * The test-mode clearinghouse simulator (spec: Claims tag, "Test clearinghouse"): every
 * `intervalMs` it takes test claims that have sat in `submitted` or `accepted` for at least
 * `delayMs` and moves each one step — submitted → accepted (or rejected), accepted → paid,
 * partially_paid or denied — as `nextClaimStep` decides from the magic `member_id`. Each
 * move and its event commit in one transaction; the move is a compare-and-set on the status,
 * so two processes running the simulator never move a claim twice.
 */
import type { Db } from '../db/types.js';
import { type ClaimStep, nextClaimStep } from '../domain/claim-status.js';
import { emitEvent, previousAttributes } from '../domain/events.js';
import { dueTestClaims } from '../repos/claims.js';
import { modifyRecord } from '../repos/records.js';
import { toSeconds } from '../repos/rows.js';
import { CLAIM, type StoredClaim } from '../resources/claim.js';
import { systemSource } from './disable-endpoint.js';

/** The spec's "one step every ~2 seconds". */
export const DEFAULT_CLEARINGHOUSE_DELAY_MS = 2000;

export interface ClearinghouseOptions {
  db: Db;
  clock?: () => number;
  /** How long a claim waits in each status before its next move (ms). */
  delayMs?: number;
  /** How often to look for claims to move (ms, default: a quarter of the delay, ≤ 500). */
  intervalMs?: number;
  /** Claims moved per look (default 100). */
  batch?: number;
  onError?: (message: string, err: unknown) => void;
}

export interface Clearinghouse {
  /** Moves every claim due now one step; returns how many moved. */
  tick(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Moves one claim one step in its own transaction; returns the step taken, or null. With
 * `expectedStatus` (the status it was due in), a claim another process has moved since is
 * left alone: its next move must wait its own delay.
 */
export async function advanceClaim(
  db: Db,
  claimId: string,
  nowMs: number,
  expectedStatus?: string,
): Promise<ClaimStep | null> {
  return db.transaction(async (tx) => {
    let step = null as ClaimStep | null;
    // The status is read under the claim's row lock, so two simulators cannot both move it.
    const done = await modifyRecord(CLAIM, tx, claimId, false, (before) => {
      if (expectedStatus !== undefined && before.status !== expectedStatus) return undefined;
      step = nextClaimStep(before, toSeconds(nowMs));
      if (step === null) return undefined;
      const after: StoredClaim = { ...before, ...step.changes, updated: toSeconds(nowMs) };
      return after;
    });
    if (done?.change === undefined || step === null) return null;
    const before = done.current;
    const after = done.change;
    await emitEvent(
      tx,
      systemSource(false, () => nowMs),
      {
        type: step.eventType,
        object: after,
        previousAttributes: previousAttributes(before, after),
      },
    );
    return step;
  });
}

/**
 * Starts the simulator. Live claims are never touched: they wait for a real clearinghouse.
 * @example
 * const sim = startClearinghouse({ db, delayMs: 2000 });
 * await sim.stop();
 */
export function startClearinghouse(options: ClearinghouseOptions): Clearinghouse {
  const { db } = options;
  const clock = options.clock ?? Date.now;
  const delayMs = options.delayMs ?? DEFAULT_CLEARINGHOUSE_DELAY_MS;
  const intervalMs = options.intervalMs ?? Math.min(500, Math.max(10, Math.floor(delayMs / 4)));
  const batch = options.batch ?? 100;
  const onError = options.onError ?? (() => {});
  let ticking: Promise<number> | null = null;

  const tick = (): Promise<number> => {
    ticking ??= (async () => {
      let moved = 0;
      try {
        const now = clock();
        for (const due of await dueTestClaims(db, now, delayMs, batch)) {
          try {
            if (await advanceClaim(db, due.id, clock(), due.status)) moved += 1;
          } catch (err) {
            onError('clearinghouse could not move a claim', err);
          }
        }
      } catch (err) {
        onError('clearinghouse could not look for claims', err);
      } finally {
        ticking = null;
      }
      return moved;
    })();
    return ticking;
  };

  const timer = setInterval(() => void tick(), intervalMs);
  return {
    tick,
    async stop() {
      clearInterval(timer);
      await ticking;
    },
  };
}
