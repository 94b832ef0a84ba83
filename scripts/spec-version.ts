/**
 * `npm run spec:version -- <date>`: ships the breaking changes since the latest released
 * contract as the dated version <date> (tooling/spec-gate/ship-version.ts): the module, its
 * registration, `info.version`, the changelog section and every "current version" mention.
 */
import { CommandFailure, runCommand, UsageError } from '../tooling/cli/command.js';
import { shipVersion } from '../tooling/spec-gate/ship-version.js';

await runCommand(
  {
    name: 'npm run spec:version --',
    prefix: 'spec:version',
    summary:
      'Writes spec/versions/<date>.ts from the breaking changes against the latest released contract (request-side: document edits only; responses, events, webhooks: edits plus converter TODOs the gate refuses until written), registers it, sets info.version, opens the CHANGELOG section and moves every "current version" mention.',
    options: {
      spec: { type: 'string', value: 'PATH', description: 'The spec (default spec/openapi.yaml).' },
    },
    positionals: '<date>',
  },
  async ({ values, positionals }) => {
    const [date, ...extra] = positionals;
    if (date === undefined || extra.length > 0)
      throw new UsageError('give exactly one version date, e.g. 2027-01-01');
    let result: Awaited<ReturnType<typeof shipVersion>>;
    try {
      result = await shipVersion(process.cwd(), date, values.spec ?? 'spec/openapi.yaml');
    } catch (error) {
      throw new CommandFailure((error as Error).message);
    }
    const { plan } = result;
    console.log(
      `${date}: ${plan.changes.length} breaking change(s) since the released ${result.since} → ${plan.edits.length} document edit(s)`,
    );
    for (const file of result.written) console.log(`  wrote ${file}`);
    if (result.todos.length > 0) {
      console.log(`TODO in spec/versions/${date}.ts (npm run spec:check fails until written):`);
      for (const line of result.todos) console.log(`  ${line}`);
    } else console.log('next: npm run generate, then npm run spec:check');
    return 0;
  },
);
