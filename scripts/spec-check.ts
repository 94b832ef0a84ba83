/**
 * `npm run spec:check`: the spec change gate (tooling/spec-gate). Runs Redocly lint (which also
 * checks every example against its schema) with validity against the official OpenAPI 3.0
 * schema (`npm run lint:spec`), the generated-code drift check, a type check of
 * generated/ and the service and client written against it (tsconfig.spec-check.json), the
 * breaking-change check against a base and the replay of every older version's
 * request examples against the in-process service, then prints one summary table and exits
 * non-zero when any step failed.
 */
import { runCommand, UsageError } from '../tooling/cli/command.js';
import { baseArgumentProblem } from '../tooling/spec-gate/git-base.js';
import {
  formatReport,
  parseSteps,
  runSpecCheck,
  STEP_NAMES,
} from '../tooling/spec-gate/run-spec-check.js';

const SPEC = {
  name: 'npm run spec:check --',
  prefix: 'spec:check',
  summary:
    'The spec change gate: Redocly lint (examples included) and OpenAPI 3.0 schema validity, generated-code drift, a type check of generated/ with the service and client using it (tsconfig.spec-check.json), the breaking-change check against a base and the replay of the request examples of every older version; one summary table, exit 1 when a step failed.',
  options: {
    base: { type: 'string', value: 'FILE', description: 'Compare with this spec file.' },
    'base-ref': {
      type: 'string',
      value: 'REV',
      description:
        'Compare with the spec at a git revision (default: merge base with main). One that is not a commit is exit 2; with CI=true a base that cannot be found fails the gate.',
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

function ciRun(value: string | undefined): boolean {
  return value !== undefined && !['', '0', 'false'].includes(value.toLowerCase());
}

await runCommand(SPEC, async ({ values }) => {
  let only: ReturnType<typeof parseSteps>;
  try {
    only = parseSteps(values.only);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const root = process.cwd();
  const baseProblem = baseArgumentProblem({
    root,
    baseFile: values.base,
    baseRef: values['base-ref'],
  });
  if (baseProblem !== undefined) throw new UsageError(baseProblem);
  const results = await runSpecCheck({
    root,
    spec: values.spec ?? 'spec/openapi.yaml',
    changelog: 'spec/CHANGELOG.md',
    baseFile: values.base,
    baseRef: values['base-ref'],
    verbose: values.verbose,
    // CI providers set CI=true; there a base that cannot be found fails the gate.
    requireBase: ciRun(process.env.CI),
    only,
  });
  console.log(formatReport(results, values.verbose));
  return results.some((r) => r.status === 'fail') ? 1 : 0;
});
