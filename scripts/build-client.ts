/**
 * `npm run build:client`: builds the generated client as an installable npm package
 * (tooling/build/client-package.ts) in `build/client/`.
 *
 *   npm run build:client [-- --out build/client]
 */
import { resolve } from 'node:path';
import { buildClientPackage, PACKAGE_NAME } from '../tooling/build/client-package.js';
import { runCommand } from '../tooling/cli/command.js';

await runCommand(
  {
    name: 'npm run build:client --',
    prefix: 'build:client',
    summary: `Builds the ${PACKAGE_NAME} npm package (compiled client, declarations, README) from generated/ and client/.`,
    options: {
      out: { type: 'string', value: 'DIR', default: 'build/client', description: 'Output folder.' },
    },
  },
  async ({ values }) => {
    const root = process.cwd();
    const outDir = resolve(root, values.out);
    const version = await buildClientPackage(root, outDir);
    console.log(`built ${PACKAGE_NAME}@${version} in ${outDir}`);
    return 0;
  },
);
