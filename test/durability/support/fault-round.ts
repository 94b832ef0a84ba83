/**
 * One disk-fault round on SQLite: the real service runs under `fiu-run -x`
 * (libfiu's POSIX preload, which wraps `pwrite64` and `fsync` — the calls better-sqlite3's
 * SQLite makes), `fiu-ctrl` turns a fault on for a batch of creates and off again. Checks:
 * every failed create is the documented 500 envelope with no detail; faults really fired; no
 * acknowledged create is lost, neither once the fault stops nor after a kill -9 and restart;
 * the service keeps serving; retries with the same keys create no duplicates; the integrity
 * check passes; the error logs hold no PHI of the failed requests.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { connect } from '../../../server/db/open.js';
import { freshDatabase } from './fresh-database.js';
import { integrityCheck } from './integrity.js';
import { runPool } from './pool.js';
import { type ServiceProcess, startService } from './service-process.js';

const run = promisify(execFile);

/** Whether `fiu-run` and `fiu-ctrl` are installed (Debian `fiu-utils`). */
export async function fiuAvailable(): Promise<boolean> {
  try {
    await run('sh', ['-c', 'command -v fiu-run && command -v fiu-ctrl']);
    return true;
  } catch {
    return false;
  }
}

export interface FaultRoundOptions {
  /** libfiu failure point names, e.g. `posix/io/rw/pwrite`, `posix/io/sync/fsync`. */
  points: readonly string[];
  probability: number;
  /** Creates sent while the fault is on. */
  writes: number;
  concurrency: number;
  log?: (line: string) => void;
}

export interface FaultFigures {
  points: string;
  probability: number;
  writes: number;
  acknowledged: number;
  /** 500 `internal` answers while the fault was on. */
  failed: number;
  /** Failed creates that had committed anyway (the retry replayed them). */
  failedButCommitted: number;
  lostAfterFault: number;
  lostAfterRestart: number;
  /** Creates answered 200 once the fault was off (out of `writes / 4`, at least 10). */
  servedAfterFault: number;
  servedAfterFaultOf: number;
  duplicates: number;
  integrity: string;
  problems: string[];
}

// The registry's `internal` answer: nothing beyond these fields, and no detail in them.
const ENVELOPE_KEYS = ['code', 'doc_url', 'message', 'param', 'request_id', 'type'];
const DETAIL = /sqlite|sql|disk|i\/o|ioerr|errno|fsync|write|\.ts\b|\bat \S+ \(|constraint|table/i;

interface Answer {
  status: number;
  text: string;
  requestId: string | null;
  id?: string;
  replayed: boolean;
  code?: string;
}

async function create(service: ServiceProcess, key: string, idem: string, body: string) {
  const res = await fetch(`${service.baseUrl}/v1/patients`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': idem,
    },
    body,
    // A hang under a fault is a failure, not a slow test.
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const parsed = JSON.parse(text) as { id?: string; error?: { code?: string } };
  const answer: Answer = {
    status: res.status,
    text,
    requestId: res.headers.get('request-id'),
    replayed: res.headers.get('idempotent-replayed') === 'true',
  };
  if (parsed.id !== undefined) answer.id = parsed.id;
  if (parsed.error?.code !== undefined) answer.code = parsed.error.code;
  return answer;
}

/** Problems with a failed answer: anything but the bare documented 500 envelope. */
export function checkFailure(answer: Answer, phi: readonly string[]): string[] {
  const problems: string[] = [];
  if (answer.status !== 500) problems.push(`status ${answer.status} is not the documented 500`);
  const body = JSON.parse(answer.text) as { error?: Record<string, unknown> };
  const error = body.error ?? {};
  if (Object.keys(body).join() !== 'error') problems.push(`body has ${Object.keys(body)}`);
  if (Object.keys(error).sort().join() !== ENVELOPE_KEYS.join()) {
    problems.push(`envelope fields ${Object.keys(error).sort().join()}`);
  }
  if (error.type !== 'api_error' || error.code !== 'internal') {
    problems.push(`type/code ${error.type}/${error.code}`);
  }
  if (error.param !== null) problems.push('param is set');
  if (error.request_id !== answer.requestId) problems.push('request_id differs from Request-Id');
  if (typeof error.message !== 'string' || DETAIL.test(error.message)) {
    problems.push(`message has detail: ${String(error.message)}`);
  }
  for (const value of phi) if (answer.text.includes(value)) problems.push('PHI in the answer');
  return problems;
}

async function fiuCtrl(pid: number, command: string): Promise<void> {
  await run('fiu-ctrl', ['-c', command, String(pid)]);
}

/** Runs one round on a fresh SQLite file and returns its figures. */
export async function runFaultRound(options: FaultRoundOptions): Promise<FaultFigures> {
  const log = options.log ?? (() => {});
  const database = await freshDatabase('sqlite');
  const marker = `fault_${randomBytes(6).toString('hex')}`;
  const problems: string[] = [];
  // PHI canaries: if a failed write's PHI reaches an answer or a log line, it shows.
  const phiOf = (i: number) => [`Canaryfault${marker.slice(6)}x${i}`, `MRNF${marker.slice(6)}${i}`];
  const bodyOf = (i: number) => {
    const [family, mrn] = phiOf(i);
    return JSON.stringify({
      name: { family, given: ['Disk'] },
      identifiers: [{ type: 'MR', system: 'https://fault.example/mrn', value: mrn }],
      birth_date: '1911-11-11',
      metadata: { fault_run: marker, n: String(i) },
    });
  };
  const wrapper = ['fiu-run', '-x'];
  const env = { WORKER: 'off', LOG_LEVEL: 'info' };
  let service = await startService({ databaseUrl: database.url, wrapper, env });
  const outputs: string[] = [];
  try {
    const key = service.printedKey;
    if (key === null) throw new Error(`no key printed:\n${service.output()}`);
    const n = options.writes;
    const answers: Array<Answer | undefined> = new Array(n);
    const finalIds = new Map<number, string>();

    // The fault on: a batch of creates.
    for (const point of options.points) {
      await fiuCtrl(service.pid, `enable_random name=${point},probability=${options.probability}`);
    }
    const faulty = service;
    await runPool(n, options.concurrency, async (i) => {
      try {
        answers[i] = await create(faulty, key, `${marker}-${i}`, bodyOf(i));
      } catch (err) {
        problems.push(`request ${i} got no answer: ${err instanceof Error ? err.message : err}`);
      }
    });
    for (const point of options.points) await fiuCtrl(service.pid, `disable name=${point}`);

    const acked = new Map<number, string>();
    let failed = 0;
    answers.forEach((a, i) => {
      if (a === undefined) return;
      if (a.status === 200 && a.id !== undefined) acked.set(i, a.id);
      else {
        failed++;
        for (const p of checkFailure(a, phiOf(i))) problems.push(`request ${i}: ${p}`);
      }
    });
    if (failed === 0) {
      problems.push(`no write failed: the fault (${options.points.join(', ')}) never fired`);
    }
    log(`  fault on: ${acked.size} acknowledged, ${failed} failed of ${n}`);

    const lostNow = await missing(service, key, acked);
    // Still serving: fresh creates and a list, with the fault off.
    const after = Math.max(10, Math.floor(n / 4));
    let served = 0;
    for (let j = 0; j < after; j++) {
      const i = n + j;
      const a = await create(service, key, `${marker}-${i}`, bodyOf(i));
      if (a.status === 200 && a.id !== undefined) {
        served++;
        finalIds.set(i, a.id);
      } else problems.push(`after the fault, create ${j} answered ${a.status} ${a.code ?? ''}`);
    }
    const list = await fetch(`${service.baseUrl}/v1/patients?limit=100`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (list.status !== 200) problems.push(`after the fault, list answered ${list.status}`);

    // Crash and restart: acknowledged writes must have been durable.
    outputs.push(service.output());
    await service.kill9();
    service = await startService({ databaseUrl: database.url, wrapper, env });
    const lostLater = await missing(service, key, new Map([...acked, ...finalIds]));
    const integrity = await integrityCheck(database);
    if (integrity !== 'ok') problems.push(`integrity check: ${integrity}`);

    // A client retrying the failed creates with the same keys.
    let failedButCommitted = 0;
    const retried = service;
    const deadline = Date.now() + 120_000;
    let pending = [...Array(n).keys()];
    while (pending.length > 0) {
      const again: number[] = [];
      for (const i of pending) {
        const a = await create(retried, key, `${marker}-${i}`, bodyOf(i));
        if (a.status === 409 && a.code === 'idempotency_key_in_use') again.push(i);
        else if (a.status !== 200 || a.id === undefined) {
          problems.push(`retry ${i} answered ${a.status} ${a.code ?? ''}`);
        } else {
          finalIds.set(i, a.id);
          const first = acked.get(i);
          if (first !== undefined && (a.id !== first || !a.replayed)) {
            problems.push(`retry of acknowledged ${i} was not a replay of ${first}`);
          }
          if (first === undefined && a.replayed) failedButCommitted++;
        }
      }
      pending = again;
      if (pending.length > 0) {
        if (Date.now() > deadline) {
          problems.push(`${pending.length} keys still in use 120 s after the restart`);
          break;
        }
        log(`  ${pending.length} keys in use after the restart; waiting`);
        await new Promise((r) => setTimeout(r, 5000));
      }
    }
    const rows = await markedRows(database.url, marker);
    const distinct = new Set(finalIds.values());
    const duplicates = rows.length - distinct.size;
    if (rows.length !== finalIds.size) {
      problems.push(`${rows.length} marked patients for ${finalIds.size} succeeded keys`);
    }
    outputs.push(service.output());
    for (let i = 0; i < n + after; i++) {
      for (const value of phiOf(i)) {
        if (outputs.some((o) => o.includes(value))) problems.push(`PHI of request ${i} logged`);
      }
    }
    return {
      points: options.points.join(' + '),
      probability: options.probability,
      writes: n,
      acknowledged: acked.size,
      failed,
      failedButCommitted,
      lostAfterFault: lostNow,
      lostAfterRestart: lostLater,
      servedAfterFault: served,
      servedAfterFaultOf: after,
      duplicates,
      integrity,
      problems,
    };
  } finally {
    await service.stop().catch(() => {});
    await database.dispose();
  }
}

/** How many of `ids` the service no longer returns. */
async function missing(
  service: ServiceProcess,
  key: string,
  ids: ReadonlyMap<number, string>,
): Promise<number> {
  let lost = 0;
  await runPool(ids.size, 10, async (j) => {
    const id = [...ids.values()][j]!;
    const res = await fetch(`${service.baseUrl}/v1/patients/${id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (res.status !== 200) lost++;
  });
  return lost;
}

async function markedRows(url: string, marker: string): Promise<string[]> {
  const db = connect(url);
  try {
    const rows = await db.all<{ id: string; data: string }>('SELECT id, data FROM patients');
    return rows
      .filter(
        (r) =>
          (JSON.parse(r.data) as { metadata?: Record<string, string> }).metadata?.fault_run ===
          marker,
      )
      .map((r) => r.id);
  } finally {
    await db.close();
  }
}

/** One line of figures. */
export function formatFaultFigures(f: FaultFigures): string {
  return [
    `[${f.points} p=${f.probability}]`,
    `writes ${f.writes}`,
    `acknowledged ${f.acknowledged}`,
    `failed (500) ${f.failed}`,
    `failed but committed ${f.failedButCommitted}`,
    `lost after fault ${f.lostAfterFault}`,
    `lost after restart ${f.lostAfterRestart}`,
    `served after fault ${f.servedAfterFault}/${f.servedAfterFaultOf}`,
    `duplicates ${f.duplicates}`,
    `integrity ${f.integrity}`,
  ].join(', ');
}
