/**
 * `npm run dev`: the service with the spec and the code watched (see tooling/dev/loop.ts).
 *
 *   npm run dev                                   spec/openapi.yaml → generated/, server/handlers/
 *   npm run dev -- --spec F --out D [--handlers H] another copy of the spec, written elsewhere
 *
 * The service reads its usual environment (PORT, HOST, DATABASE_URL, ...).
 */
import { resolve } from 'node:path';
import { exitOnFailure, parseOrExit, UsageError } from '../tooling/cli/command.js';
import { startDevLoop } from '../tooling/dev/loop.js';

const SPEC = {
  name: 'npm run dev --',
  prefix: 'dev',
  summary:
    'Runs the service and keeps it on the spec: every save of the spec (or its guides, redocly.yaml, a lint rule) is linted, served without a restart, and regenerated; code changes under server/ and client/ restart the service. Ctrl-C stops.',
  options: {
    spec: {
      type: 'string',
      value: 'FILE',
      description: 'The spec to watch (default spec/openapi.yaml; needs --out).',
    },
    out: {
      type: 'string',
      value: 'DIR',
      description: 'Where to write the generated files (with --spec; default generated/).',
    },
    handlers: {
      type: 'string',
      value: 'DIR',
      description:
        'Where to reconcile handler stubs (with --spec; default server/handlers/ for our spec, none for another).',
    },
  },
  notes: ['The service reads its usual environment (PORT, HOST, DATABASE_URL, ...).'],
} as const;

const ROOT = resolve(import.meta.dirname, '..');

const { values } = parseOrExit(SPEC);
const ours = values.spec === undefined;
if (!ours && values.out === undefined) {
  exitOnFailure('dev')(new UsageError('--spec needs --out DIR'));
}
if (ours && (values.out !== undefined || values.handlers !== undefined)) {
  exitOnFailure('dev')(
    new UsageError(
      '--out and --handlers go with --spec: our spec writes generated/ and server/handlers/',
    ),
  );
}

const loop = startDevLoop({
  root: ROOT,
  specFile: resolve(values.spec ?? resolve(ROOT, 'spec/openapi.yaml')),
  outDir: resolve(values.out ?? resolve(ROOT, 'generated')),
  handlersDir: ours
    ? resolve(ROOT, 'server/handlers')
    : values.handlers === undefined
      ? null
      : resolve(values.handlers),
  remakeCommand: ours
    ? 'npm run generate'
    : `npm run dev -- --spec ${values.spec} --out ${values.out}`,
  configPath: resolve(ROOT, 'redocly.yaml'),
  // spec/versions/ is no code dir: a module added, edited or removed is a new contract, which
  // the service swaps in with its registry and tables (tooling/dev/swap-host.ts), no restart.
  codeDirs: [resolve(ROOT, 'server'), resolve(ROOT, 'client')],
  ruleDirs: [resolve(ROOT, 'tooling/lint-rules')],
  env: process.env,
});

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  loop.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
