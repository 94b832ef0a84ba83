/**
 * `npm run spec:check`: the spec change gate (tooling/spec-gate). Runs Redocly lint (which also
 * checks every example against its schema), the generated-code drift check, a type check of
 * generated/ and the breaking-change check against a base, then prints one summary table and
 * exits non-zero when any step failed.
 */
import { parseArgs } from 'node:util';
import { formatReport, parseSteps, runSpecCheck } from '../tooling/spec-gate/run-spec-check.js';

const USAGE = `Usage: npm run spec:check [-- options]
  --base FILE       compare with this spec file
  --base-ref REV    compare with the spec at this git revision (default: merge base with main)
  --spec PATH       the spec (default spec/openapi.yaml)
  --only STEPS      comma-separated subset of: lint, drift, types, breaking
  --verbose         also list compatible changes
  --help            print this help`;

async function main(): Promise<number> {
  let values: ReturnType<typeof parse>['values'];
  let only: ReturnType<typeof parseSteps>;
  try {
    values = parse().values;
    only = parseSteps(values.only);
  } catch (err) {
    console.error(`spec:check: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const results = await runSpecCheck({
    root: process.cwd(),
    spec: values.spec ?? 'spec/openapi.yaml',
    changelog: 'spec/CHANGELOG.md',
    baseFile: values.base,
    baseRef: values['base-ref'],
    verbose: values.verbose,
    only,
  });
  console.log(formatReport(results, values.verbose));
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}

function parse() {
  return parseArgs({
    options: {
      base: { type: 'string' },
      'base-ref': { type: 'string' },
      spec: { type: 'string' },
      only: { type: 'string' },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
}

process.exitCode = await main();
