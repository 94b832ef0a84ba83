/**
 * `WORKERS=N npm start` (or `node build/server/main.js` with WORKERS=N): N service processes
 * (node:cluster) sharing one listening port and one PostgreSQL database, for machines with
 * more than one core. The built entry (`server/entry.mjs`) forks them, so a production install
 * behaves as `npm start` does. Only `node:` imports and erasable TypeScript, because
 * `scripts/start.ts` also loads it with plain Node to check WORKERS before (and without) any
 * build.
 *
 * - The primary only forks and watches: it answers no request and opens no database.
 * - One process (the first) runs the webhook delivery worker and the clearinghouse, as a
 *   single `npm start` does; the others start with `WORKER=off`. Retention runs in each,
 *   one round at a time across processes (its advisory lock, server/retention/).
 * - SQLite is refused for N > 1: a SQLite file is served by one process (its server lock).
 * - A process that exits before it listens fails the whole start with its exit code (a bad
 *   setting fails every process alike); one that dies later is replaced after a second.
 * - SIGTERM or SIGINT to the primary is passed to every process, which shuts down gracefully;
 *   the primary exits when they all have.
 */
import cluster, { type Worker } from 'node:cluster';

/** The most processes WORKERS may ask for. */
const MAX_WORKERS = 256;

/** What WORKERS asks for: a count ≥ 1, or a one-line reason it cannot be used. */
export function workerCount(
  env: Readonly<Record<string, string | undefined>>,
): { count: number } | { error: string } {
  const raw = env.WORKERS?.trim() ?? '';
  if (raw === '') return { count: 1 };
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_WORKERS) {
    return { error: `WORKERS must be a whole number from 1 to ${MAX_WORKERS}` };
  }
  const count = Number(raw);
  const url = env.DATABASE_URL?.trim() ?? '';
  if (count > 1 && !/^postgres(ql)?:\/\//.test(url)) {
    return {
      error: `WORKERS=${count} needs PostgreSQL (DATABASE_URL=postgres://…): a SQLite file is served by one process`,
    };
  }
  return { count };
}

/** Runs `main` (the built service) in `count` processes until they stop; returns the exit code. */
export function runWorkers(main: string, count: number): Promise<number> {
  cluster.setupPrimary({ exec: main, execArgv: process.execArgv });
  const backgroundOff = (process.env.WORKER ?? '').trim().toLowerCase();
  const roles = new Map<Worker, number>();
  const listening = new Set<Worker>();
  let stopping = false;
  let exitCode = 0;

  const fork = (index: number): void => {
    // The first process keeps the background work (unless WORKER turns it off everywhere).
    const env = index === 0 ? {} : { WORKER: 'off' };
    const worker = cluster.fork(env);
    roles.set(worker, index);
  };

  const stopAll = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    for (const worker of roles.keys()) {
      if (!worker.isDead()) worker.process.kill(signal);
    }
  };

  return new Promise((resolve) => {
    cluster.on('listening', (worker) => listening.add(worker));
    cluster.on('exit', (worker, code, signal) => {
      const index = roles.get(worker) ?? 0;
      roles.delete(worker);
      const started = listening.delete(worker);
      if (!stopping) {
        if (!started) {
          // Failed before listening: every process would fail the same way.
          exitCode = code ?? 1;
          stopAll('SIGTERM');
        } else {
          process.stderr.write(
            `patient-care: service process ${worker.process.pid} exited (${signal ?? code}); starting another\n`,
          );
          setTimeout(() => {
            if (!stopping) fork(index);
          }, 1000).unref();
        }
      } else if (code !== 0 && code !== null && exitCode === 0) {
        exitCode = code;
      }
      if (stopping && roles.size === 0) resolve(exitCode);
    });
    for (const signal of ['SIGTERM', 'SIGINT'] as const)
      process.once(signal, () => stopAll(signal));
    process.stdout.write(
      `patient-care: ${count} service processes (WORKERS=${count}) on one port${backgroundOff === 'off' ? '' : '; webhook delivery runs in the first'}\n`,
    );
    for (let index = 0; index < count; index++) fork(index);
  });
}
