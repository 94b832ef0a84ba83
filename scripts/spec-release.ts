/**
 * `npm run spec:release -- <date>`: freezes the contract of the version being released into
 * `spec/released/<date>.json` (tooling/spec-gate/released.ts), which the version tests and the
 * spec gate then compare every later commit with. Run once per version, when it ships.
 */
import { CommandFailure, runCommand, UsageError } from '../tooling/cli/command.js';
import { RELEASED_DIR, releaseContract } from '../tooling/spec-gate/released.js';

await runCommand(
  {
    name: 'npm run spec:release --',
    prefix: 'spec:release',
    summary: `Writes the released contract of <date> (the bundled spec, whose info.version must be <date>) to ${RELEASED_DIR}/<date>.json; a version already released with another contract is refused.`,
    options: {
      spec: { type: 'string', value: 'PATH', description: 'The spec (default spec/openapi.yaml).' },
    },
    positionals: '<date>',
  },
  async ({ values, positionals }) => {
    const [version, ...extra] = positionals;
    if (version === undefined || extra.length > 0)
      throw new UsageError('give exactly one version date, e.g. 2027-01-01');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(version))
      throw new UsageError(`${version} is not a version date (YYYY-MM-DD)`);
    let result: Awaited<ReturnType<typeof releaseContract>>;
    try {
      result = await releaseContract(process.cwd(), version, values.spec ?? 'spec/openapi.yaml');
    } catch (error) {
      throw new CommandFailure((error as Error).message);
    }
    console.log(
      result.outcome === 'written'
        ? `released ${version}: wrote ${RELEASED_DIR}/${version}.json`
        : `${version} was released with this contract already (${RELEASED_DIR}/${version}.json unchanged)`,
    );
    return 0;
  },
);
