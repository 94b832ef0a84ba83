import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The integration tier (`npm run test:integration`): suites that need other processes killed
 * and restarted, a browser, an npm install, large downloads or minutes of load. Listed file by
 * file (or folder by folder) on purpose: a new test file lands in the fast tier (`npm test`)
 * unless it is added here, with its reason.
 */
export const INTEGRATION_TESTS = [
  // kill -9 crash rounds and libfiu disk-fault rounds against the real service process
  'test/durability/**/*.test.ts',
  // the delivery worker killed mid-delivery in a child process
  'test/webhooks/crash.test.ts',
  // several workers with their own pools sharing one PostgreSQL
  'test/webhooks/postgres-workers.test.ts',
  // conflicting updates spread over two service processes on one PostgreSQL
  'test/service/two-process-concurrency.test.ts',
  // headless Chromium; dev-reload.test.ts also runs `npm run dev` (the loop and the service)
  // as processes
  'test/browser/**/*.test.ts',
  // the client and service as packages: build, npm pack, install into an empty project
  'test/package/**/*.test.ts',
  // third-party OpenAPI documents fetched from npm (tooling/corpus/)
  'test/generators/corpus.test.ts',
  'test/client/generator-corpus.test.ts',
  // the full contract fuzz (thousands of cases behind a Prism proxy)
  'test/fuzz/contract-fuzz.test.ts',
  // two Prism proxies started (8-10 s each to load the spec) for one deprecated-version check
  'test/versions/deprecation-prism.test.ts',
  // every operation pinned to 2026-11-01 behind Prism with that version's document (two
  // services, two Prism loads)
  'test/versions/prism-walk.test.ts',
  // a copy of the repository shipped a fixture version: generate, two services, the gate
  'test/versions/fixture-version.test.ts',
  // the same with `npm run spec:version` writing the version: a copy, generate, a service, the gate
  'test/versions/spec-version.test.ts',
  // `npm run dev` in a copy of the repository while a version is shipped and edited
  'test/dev/dev-versions.test.ts',
  // every command line started as its own process, three times each (~40 Node starts under
  // tsx): 50 s of the fast tier's 173 s on 2 cores, for behaviour that changes rarely; the
  // shared parser behind it (`tooling/cli/command.ts`) keeps its unit tests in the fast tier
  'test/cli/commands.test.ts',
  // the service under write load while `patient-care backup` runs, then a restore, on both
  // databases (service and command processes, pg_dump/pg_restore)
  'test/backup/backup-under-load.test.ts',
  // npm start, npm run dev and the built entry started and stopped by a signal to npm's pid,
  // each start a build, a dev loop or a cluster (about a minute)
  'test/cli/signals.test.ts',
  // npm run on the machine's own (older) Node, and .ci/use-node.sh fetching Node 24 from npm
  // into an empty cache, three shells at once
  'test/cli/node-runtime.test.ts',
  // the deployment in deploy/ as real processes: nginx, the production build with WORKERS=2,
  // PgBouncer, each killed or restarted under write load
  'test/deploy/**/*.test.ts',
  // earlier releases installed (npm ci, cached) and run as processes, then today's build on
  // their databases (`npm run test:upgrade`)
  'test/upgrade/releases.test.ts',
  // 1,500 malformed bodies (about 300 MB) through the service, then the heap after full GCs
  'test/http/hostile-memory.test.ts',
];

export default defineConfig({
  test: {
    // Hang detectors, not speed targets (speed lives in bench/). A case that starts a process
    // under tsx takes about 3 s on a quiet two-core machine and up to 36 s at load 15 (measured
    // with spec:check's usage error), so a 30 s limit failed sound tests whenever the machine
    // was busy; two minutes still ends a real hang.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core machine,
    // where most suites wait on child processes, PostgreSQL or the disk rather than compute.
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...INTEGRATION_TESTS],
          // The type tests (`*.test-d.ts`) are compiled by `npm run typecheck`, which `npm test`
          // runs before vitest: `tsc -p tsconfig.json` covers test/, and a failed
          // `expectTypeOf` or an unused `@ts-expect-error` is a compile error there. Vitest's
          // own typecheck mode would run tsc over them a second time.
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION_TESTS,
        },
      },
    ],
  },
});
