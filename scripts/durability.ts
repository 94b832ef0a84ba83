/**
 * `npm run test:durability`, the full bounded run of issue 7 items 3 and 4: 3 crash rounds of
 * 1,000 concurrent creates (100 in flight) with a kill -9 mid-way, on SQLite and on PostgreSQL
 * (skipped with a notice when unreachable), then disk-fault rounds under libfiu (skipped with a
 * notice when fiu-utils is missing). Prints the figures of each round and exits 1 on any
 * loss, duplicate, failed integrity check or other problem.
 *
 * Options: --rounds N (3), --requests N (1000), --concurrency N (100), --faults N (writes per
 * fault round, 200), --only crash|faults.
 */
import type { Dialect } from '../server/db/types.js';
import { formatFigures, runCrashRound } from '../test/durability/support/crash-round.js';
import {
  fiuAvailable,
  formatFaultFigures,
  runFaultRound,
} from '../test/durability/support/fault-round.js';
import { POSTGRES_URL, postgresReachable } from '../test/durability/support/fresh-database.js';
import { choiceOption, exitOnFailure, integerOption, parseOrExit } from '../tooling/cli/command.js';

const { values } = parseOrExit({
  name: 'npm run test:durability --',
  prefix: 'test:durability',
  summary:
    'Crash rounds (concurrent creates, kill -9 mid-way, restart, count) on SQLite and PostgreSQL, then disk-fault rounds under libfiu; exit 1 on any loss, duplicate or failed check.',
  options: {
    rounds: { type: 'string', value: 'N', default: '3', description: 'Crash rounds per database.' },
    requests: { type: 'string', value: 'N', default: '1000', description: 'Creates per round.' },
    concurrency: { type: 'string', value: 'N', default: '100', description: 'Creates in flight.' },
    faults: { type: 'string', value: 'N', default: '200', description: 'Writes per fault round.' },
    only: { type: 'string', value: 'crash|faults', description: 'Run one kind of round only.' },
  },
});
const { rounds, requests, concurrency, faultWrites } = (() => {
  try {
    choiceOption('only', values.only, ['crash', 'faults']);
    return {
      rounds: integerOption('rounds', values.rounds, { min: 1 }),
      requests: integerOption('requests', values.requests, { min: 1 }),
      concurrency: integerOption('concurrency', values.concurrency, { min: 1 }),
      faultWrites: integerOption('faults', values.faults, { min: 1 }),
    };
  } catch (error) {
    return exitOnFailure('test:durability')(error);
  }
})();
const log = (line: string) => process.stdout.write(`${line}\n`);
const failures: string[] = [];

if (values.only !== 'faults') {
  const dialects: Dialect[] = ['sqlite'];
  if (await postgresReachable()) dialects.push('postgres');
  else log(`NOTICE: PostgreSQL not reachable at ${POSTGRES_URL}; PostgreSQL rounds skipped.`);
  for (const dialect of dialects) {
    const totals = { acknowledged: 0, present: 0, lost: 0, duplicates: 0 };
    for (let round = 1; round <= rounds; round++) {
      log(
        `crash round ${round}/${rounds} on ${dialect}: ${requests} creates, ${concurrency} in flight`,
      );
      const figures = await runCrashRound({ dialect, requests, concurrency, log });
      log(formatFigures(figures, round));
      for (const problem of figures.problems)
        failures.push(`${dialect} round ${round}: ${problem}`);
      totals.acknowledged += figures.acknowledged;
      totals.present += figures.presentAfterRestart;
      totals.lost += figures.lost;
      totals.duplicates += figures.duplicates;
    }
    log(
      `crash totals [${dialect}]: acknowledged ${totals.acknowledged}, present after restart ${totals.present}, lost ${totals.lost}, duplicates ${totals.duplicates}`,
    );
  }
}

if (values.only !== 'crash') {
  if (await fiuAvailable()) {
    const writes = faultWrites;
    const faultRounds = [
      { points: ['posix/io/rw/pwrite'], probability: 0.02 },
      { points: ['posix/io/rw/pwrite'], probability: 0.05 },
      { points: ['posix/io/sync/fsync', 'posix/io/sync/fdatasync'], probability: 0.2 },
    ];
    for (const round of faultRounds) {
      log(
        `disk-fault round: ${round.points.join(' + ')} p=${round.probability}, ${writes} creates`,
      );
      const figures = await runFaultRound({ ...round, writes, concurrency: 10, log });
      log(formatFaultFigures(figures));
      for (const problem of figures.problems) failures.push(`faults ${figures.points}: ${problem}`);
    }
  } else {
    log('NOTICE: fiu-run/fiu-ctrl not installed (Debian fiu-utils); disk-fault rounds skipped.');
  }
}

if (failures.length > 0) {
  log(`FAILED: ${failures.length} problem(s)`);
  for (const failure of failures.slice(0, 50)) log(`  ${failure}`);
  process.exit(1);
}
log('durability: all rounds passed');
process.exit(0);
