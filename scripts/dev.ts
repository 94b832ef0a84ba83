/**
 * `npm run dev`: the service with the spec and the code watched (see tooling/dev/loop.ts).
 *
 *   npm run dev                                   spec/openapi.yaml → generated/, server/handlers/
 *   npm run dev -- --spec F --out D [--handlers H] another copy of the spec, written elsewhere
 *
 * The service reads its usual environment (PORT, HOST, DATABASE_URL, ...).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startDevLoop } from '../tooling/dev/loop.js';

const USAGE = `Usage: npm run dev [-- --spec FILE --out DIR [--handlers DIR]]

Runs the service and keeps it on the spec: every save of the spec (or its guides, redocly.yaml,
a lint rule) is linted, served without a restart, and regenerated; code changes under server/
and client/ restart the service. Ctrl-C stops.

Options:
  --spec FILE      the spec to watch (default spec/openapi.yaml)
  --out DIR        where to write the generated files (required with --spec; default generated/)
  --handlers DIR   where to reconcile handler stubs (default server/handlers/ for our spec;
                   none for another --spec)
  -h, --help       this text`;

const ROOT = resolve(import.meta.dirname, '..');

function usageError(message: string): never {
  process.stderr.write(`dev: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let values: { spec?: string; out?: string; handlers?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      spec: { type: 'string' },
      out: { type: 'string' },
      handlers: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }));
} catch (error) {
  usageError(error instanceof Error ? error.message : String(error));
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const ours = values.spec === undefined;
if (!ours && values.out === undefined) usageError('--spec needs --out DIR');
if (ours && (values.out !== undefined || values.handlers !== undefined)) {
  usageError(
    '--out and --handlers go with --spec: our spec writes generated/ and server/handlers/',
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
  codeDirs: [resolve(ROOT, 'server'), resolve(ROOT, 'client')],
  ruleDirs: [resolve(ROOT, 'spec/plugins')],
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
