/**
 * `npm run spec:check`: the spec change gate. Runs Redocly lint, example validation, the
 * generated-code drift check, a type check of generated/ and the breaking-change check against
 * a base, then prints one summary table and exits non-zero when any step failed.
 *
 * Options: --base FILE (compare with a spec file), --base-ref REV (with the spec at a git
 * revision; default: merge base with main), --spec PATH (default spec/openapi.yaml),
 * --only lint,examples,drift,types,breaking, --verbose (also list compatible changes).
 */
import { parseArgs } from 'node:util';
import {
  formatReport,
  runSpecCheck,
  STEP_NAMES,
  type StepName,
} from '../tooling/spec-gate/run-spec-check.js';

function main(): Promise<number> | number {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse().values;
  } catch (err) {
    console.error(`spec:check: ${(err as Error).message}`);
    return 2;
  }
  const only = values.only?.split(',').map((s) => s.trim());
  const unknown = only?.filter((s) => !(STEP_NAMES as readonly string[]).includes(s)) ?? [];
  if (unknown.length > 0) {
    console.error(
      `spec:check: unknown step(s) ${unknown.join(', ')}; steps: ${STEP_NAMES.join(', ')}`,
    );
    return 2;
  }
  return runSpecCheck({
    root: process.cwd(),
    spec: values.spec ?? 'spec/openapi.yaml',
    changelog: 'spec/CHANGELOG.md',
    baseFile: values.base,
    baseRef: values['base-ref'],
    verbose: values.verbose,
    only: only as StepName[] | undefined,
  }).then((results) => {
    console.log(formatReport(results, values.verbose));
    return results.some((r) => r.status === 'fail') ? 1 : 0;
  });
}

function parse() {
  return parseArgs({
    options: {
      base: { type: 'string' },
      'base-ref': { type: 'string' },
      spec: { type: 'string' },
      only: { type: 'string' },
      verbose: { type: 'boolean', default: false },
    },
  });
}

process.exitCode = await main();
