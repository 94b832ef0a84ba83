/**
 * One crash round: N concurrent `POST /v1/patients` with distinct
 * Idempotency-Keys against the real service process, `kill -9` once a share of them was
 * acknowledged, restart, then check that every acknowledged patient is there, that the
 * database passes its integrity check, and that retrying every request with its key creates
 * no duplicates (acknowledged ones replay with `Idempotent-Replayed: true`).
 */
import { randomBytes } from 'node:crypto';
import { connect } from '../../../server/db/open.js';
import type { Dialect } from '../../../server/db/types.js';
import { type FreshDatabase, freshDatabase } from './fresh-database.js';
import { integrityCheck } from './integrity.js';
import { runPool } from './pool.js';
import { type ServiceProcess, startService } from './service-process.js';

export interface CrashRoundOptions {
  dialect: Dialect;
  /** Creates to send. */
  requests: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Kill once this share of `requests` has been acknowledged (0–1). Default random 0.3–0.7. */
  killAt?: number;
  log?: (line: string) => void;
}

/** What a round saw; `problems` is empty when every property held. */
export interface CrashFigures {
  dialect: Dialect;
  requests: number;
  /** Acknowledgements counted when the SIGKILL was sent. */
  killedAfter: number;
  /** 2xx responses received before the process died. */
  acknowledged: number;
  presentAfterRestart: number;
  lost: number;
  /** Requests with no 2xx before the crash (in flight, refused, or never sent). */
  unacknowledged: number;
  /** Unacknowledged requests whose write had committed: their retry was a replay. */
  committedButUnacknowledged: number;
  /** Retries that ran for the first time (the crash came before their commit). */
  createdOnRetry: number;
  /** Retries that met 409 idempotency_key_in_use (a `running` record of the dead process). */
  inUseAfterRestart: number;
  /** Keys whose request finally succeeded. */
  keysSucceeded: number;
  /** Patients carrying this round's marker. */
  rowsWithMarker: number;
  duplicates: number;
  integrity: string;
  problems: string[];
}

interface Sent {
  acknowledgedId?: string;
  finalId?: string;
  replayed?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function bodyFor(marker: string, index: number): string {
  // No identifiers: a duplicate must show up as a second row, not hide behind a 409.
  return JSON.stringify({
    name: { family: `Durability${index}`, given: ['Crash'] },
    metadata: { durability_run: marker, n: String(index) },
  });
}

async function post(
  service: ServiceProcess,
  key: string,
  marker: string,
  index: number,
): Promise<{ status: number; id?: string; replayed: boolean; code?: string }> {
  const res = await fetch(`${service.baseUrl}/v1/patients`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': `${marker}-${index}`,
    },
    body: bodyFor(marker, index),
    signal: AbortSignal.timeout(60_000),
  });
  const body = (await res.json()) as { id?: string; error?: { code?: string } };
  return {
    status: res.status,
    ...(body.id === undefined ? {} : { id: body.id }),
    ...(body.error?.code === undefined ? {} : { code: body.error.code }),
    replayed: res.headers.get('idempotent-replayed') === 'true',
  };
}

/** Rows of `patients` whose metadata carries `marker`. */
async function markedRows(database: FreshDatabase, marker: string): Promise<string[]> {
  const db = connect(database.url);
  try {
    const rows = await db.all<{ id: string; data: string }>('SELECT id, data FROM patients');
    return rows
      .filter((r) => {
        const data = JSON.parse(r.data) as { metadata?: Record<string, string> };
        return data.metadata?.durability_run === marker;
      })
      .map((r) => r.id);
  } finally {
    await db.close();
  }
}

/** Runs one round on a fresh database and returns its figures. */
export async function runCrashRound(options: CrashRoundOptions): Promise<CrashFigures> {
  const log = options.log ?? (() => {});
  const n = options.requests;
  const killAt = Math.max(1, Math.floor(n * (options.killAt ?? 0.3 + Math.random() * 0.4)));
  const marker = `dur_${randomBytes(6).toString('hex')}`;
  const database = await freshDatabase(options.dialect);
  const problems: string[] = [];
  const sent: Sent[] = Array.from({ length: n }, () => ({}));
  let service = await startService({ databaseUrl: database.url, env: { WORKER: 'off' } });
  try {
    const key = service.printedKey;
    if (key === null) throw new Error(`no key printed on a fresh database:\n${service.output()}`);

    // Phase 1: the load, and the crash once `killAt` creates were acknowledged.
    let acked = 0;
    let killedAfter = 0;
    let killing: Promise<void> | undefined;
    const first = service;
    await runPool(n, options.concurrency, async (i) => {
      if (killing) return;
      try {
        const res = await post(first, key, marker, i);
        if (res.status === 200 && res.id !== undefined) {
          sent[i]!.acknowledgedId = res.id;
          acked++;
          if (acked >= killAt && !killing) {
            killedAfter = acked;
            killing = first.kill9();
          }
        } else if (!killing) {
          problems.push(`before the crash, request ${i} answered ${res.status} ${res.code ?? ''}`);
        }
      } catch {
        // Connection reset or refused: the process died with this request in flight.
      }
    });
    await (killing ?? first.kill9());
    const acknowledged = sent.filter((s) => s.acknowledgedId !== undefined).length;
    log(`  killed after ${killedAfter} acknowledgements; ${acknowledged} acknowledged in all`);

    // Phase 2: restart; every acknowledged patient must be readable.
    service = await startService({ databaseUrl: database.url, env: { WORKER: 'off' } });
    const second = service;
    let present = 0;
    await runPool(n, 20, async (i) => {
      const id = sent[i]!.acknowledgedId;
      if (id === undefined) return;
      const res = await fetch(`${second.baseUrl}/v1/patients/${id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await res.json()) as { id?: string; metadata?: Record<string, string> };
      if (res.status === 200 && body.metadata?.n === String(i)) present++;
      else problems.push(`acknowledged ${id} (request ${i}) answered ${res.status} after restart`);
    });
    const integrity = await integrityCheck(database);
    if (integrity !== 'ok') problems.push(`integrity check: ${integrity}`);

    // Phase 3: a client retrying everything with the same keys. Requests in flight at the
    // crash left `running` records; those answer 409 until they are stale (60 s).
    let pending = [...sent.keys()];
    let inUse = 0;
    const deadline = Date.now() + 120_000;
    let committedButUnacknowledged = 0;
    let createdOnRetry = 0;
    while (pending.length > 0) {
      const again: number[] = [];
      await runPool(pending.length, options.concurrency, async (j) => {
        const i = pending[j]!;
        const res = await post(second, key, marker, i);
        const s = sent[i]!;
        if (res.status === 409 && res.code === 'idempotency_key_in_use') {
          again.push(i);
          return;
        }
        if (res.status !== 200 || res.id === undefined) {
          problems.push(`retry of request ${i} answered ${res.status} ${res.code ?? ''}`);
          return;
        }
        s.finalId = res.id;
        s.replayed = res.replayed;
        if (s.acknowledgedId !== undefined) {
          if (!res.replayed) problems.push(`retry of acknowledged request ${i} was not a replay`);
          if (res.id !== s.acknowledgedId) {
            problems.push(`retry of request ${i} answered ${res.id}, not ${s.acknowledgedId}`);
          }
        } else if (res.replayed) committedButUnacknowledged++;
        else createdOnRetry++;
      });
      if (again.length > 0 && pending.length === n) inUse = again.length;
      pending = again;
      if (pending.length > 0) {
        if (Date.now() > deadline) {
          problems.push(`${pending.length} keys still in use 120 s after the restart`);
          break;
        }
        log(`  ${pending.length} keys in use (records of the dead process); waiting`);
        await sleep(5000);
      }
    }

    const succeeded = new Set(sent.flatMap((s, i) => (s.finalId === undefined ? [] : [i])));
    const ids = await markedRows(database, marker);
    const distinctIds = new Set(sent.flatMap((s) => (s.finalId ? [s.finalId] : [])));
    const duplicates = ids.length - distinctIds.size;
    if (ids.length !== succeeded.size) {
      problems.push(`${ids.length} marked patients for ${succeeded.size} succeeded keys`);
    }
    if (distinctIds.size !== succeeded.size) problems.push('two keys answered the same id');
    if (succeeded.size !== n) problems.push(`${n - succeeded.size} keys never succeeded`);
    const finalIntegrity = await integrityCheck(database);
    if (finalIntegrity !== 'ok') problems.push(`integrity check after retries: ${finalIntegrity}`);
    return {
      dialect: options.dialect,
      requests: n,
      killedAfter,
      acknowledged,
      presentAfterRestart: present,
      lost: acknowledged - present,
      unacknowledged: n - acknowledged,
      committedButUnacknowledged,
      createdOnRetry,
      inUseAfterRestart: inUse,
      keysSucceeded: succeeded.size,
      rowsWithMarker: ids.length,
      duplicates,
      integrity,
      problems,
    };
  } finally {
    await service.stop().catch(() => {});
    await database.dispose();
  }
}

/** One line of figures, as the test and the script print them. */
export function formatFigures(f: CrashFigures, round?: number): string {
  return [
    `[${f.dialect}${round === undefined ? '' : ` round ${round}`}]`,
    `requests ${f.requests}`,
    `acknowledged ${f.acknowledged}`,
    `present after restart ${f.presentAfterRestart}`,
    `lost ${f.lost}`,
    `duplicates ${f.duplicates}`,
    `committed-unacknowledged ${f.committedButUnacknowledged}`,
    `created on retry ${f.createdOnRetry}`,
    `409 in use after restart ${f.inUseAfterRestart}`,
    `integrity ${f.integrity}`,
  ].join(', ');
}
