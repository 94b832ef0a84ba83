/** `npm run build`: the bundled server and the docs site in `build/` (tooling/build/build.ts). */
import { relative } from 'node:path';
import { buildService } from '../tooling/build/build.js';
import { runCommand } from '../tooling/cli/command.js';

const ROOT = process.cwd();

await runCommand(
  {
    name: 'npm run build --',
    prefix: 'build',
    summary:
      'Bundles server/main.ts into build/server/ and prepares the docs site (bundled spec, Redoc and RapiDoc files) in build/site/. Run the result with `node build/server/main.js` or `npm start`.',
    options: {
      out: { type: 'string', value: 'DIR', description: 'Output folder.', default: 'build' },
    },
  },
  async ({ values }) => {
    const result = await buildService(ROOT, values.out);
    for (const part of result.dropped)
      console.warn(`build: left out ${part}: it loads from another origin`);
    console.log(
      `build: wrote ${relative(ROOT, result.outDir) || '.'}/ in ${(result.ms / 1000).toFixed(1)} s`,
    );
    return 0;
  },
);
