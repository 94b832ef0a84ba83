/**
 * `npm run spec:check`: the spec change gate. Runs Redocly lint, example validation, the
 * generated-code drift check, a type check of generated/ and the breaking-change check against
 * a base, then prints one summary table and exits non-zero when any step failed.
 *
 * Options: --base FILE (compare with a spec file), --base-ref REV (with the spec at a git
 * revision; default: merge base with main), --spec PATH (default spec/openapi.yaml),
 * --only lint,examples,drift,types,breaking, --verbose (also list compatible changes).
 */

import { runCommand, UsageError } from '../tooling/cli/command.js';
import {
  formatReport,
  runSpecCheck,
  STEP_NAMES,
  type StepName,
} from './lib/breaking/run-spec-check.js';

const SPEC = {
  name: 'npm run spec:check --',
  prefix: 'spec:check',
  summary:
    'The spec change gate: Redocly lint, example validation, generated-code drift, a type check of generated/ and the breaking-change check against a base; one summary table, exit 1 when a step failed.',
  options: {
    base: { type: 'string', value: 'FILE', description: 'Compare with this spec file.' },
    'base-ref': {
      type: 'string',
      value: 'REV',
      description: 'Compare with the spec at a git revision (default: merge base with main).',
    },
    spec: { type: 'string', value: 'PATH', description: 'The spec (default spec/openapi.yaml).' },
    only: {
      type: 'string',
      value: 'STEPS',
      description: `Comma-separated steps: ${STEP_NAMES.join(', ')}.`,
    },
    verbose: { type: 'boolean', default: false, description: 'Also list compatible changes.' },
  },
} as const;

await runCommand(SPEC, async ({ values }) => {
  const only = values.only?.split(',').map((s) => s.trim());
  const unknown = only?.filter((s) => !(STEP_NAMES as readonly string[]).includes(s)) ?? [];
  if (unknown.length > 0) {
    throw new UsageError(`unknown step(s) ${unknown.join(', ')}; steps: ${STEP_NAMES.join(', ')}`);
  }
  const results = await runSpecCheck({
    root: process.cwd(),
    spec: values.spec ?? 'spec/openapi.yaml',
    changelog: 'spec/CHANGELOG.md',
    baseFile: values.base,
    baseRef: values['base-ref'],
    verbose: values.verbose,
    only: only as StepName[] | undefined,
  });
  console.log(formatReport(results, values.verbose));
  return results.some((r) => r.status === 'fail') ? 1 : 0;
});
