/**
 * Lets Node run this repository's TypeScript with its own type stripping (Node 24), without a
 * loader such as tsx: the sources import each other as `./file.js` (NodeNext style), and this
 * resolve hook maps such a specifier to the `.ts` file beside it when no `.js` file exists.
 * Only relative imports from files outside node_modules are touched, and the hook is
 * synchronous and in-thread, so the hundreds of modules Redocly and TypeScript load cost
 * nothing extra. Used by `npm run generate`, where a loader's per-module work was a large part
 * of the run time.
 *
 *   node --import ./tooling/node/ts-resolve.mjs scripts/generate.ts
 *
 * On a Node without type stripping and synchronous hooks (older than 22.15, e.g. a machine's
 * Node 20 before `.ci/use-node.sh`), it registers tsx's loader instead: slower, but `npm run
 * lint` and `npm run generate` still work rather than stopping on a missing `node:module` export.
 */
import { existsSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';

if (typeof nodeModule.registerHooks === 'function' && process.features.typescript) {
  // V8's compiled code for every module is kept on disk (Node's own cache folder under the OS
  // temp directory): TypeScript's 9 MB compiler, which openapi-typescript prints with, otherwise
  // costs about a second to compile on every run.
  nodeModule.enableCompileCache?.();
  registerTsResolve(nodeModule.registerHooks);
} else {
  const { register } = await import('tsx/esm/api');
  register();
}

function registerTsResolve(registerHooks) {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const parent = context.parentURL;
      if (
        parent?.startsWith('file:') &&
        !parent.includes('/node_modules/') &&
        (specifier.startsWith('./') || specifier.startsWith('../')) &&
        specifier.endsWith('.js')
      ) {
        const candidate = new URL(`${specifier.slice(0, -3)}.ts`, parent);
        if (
          !existsSync(fileURLToPath(new URL(specifier, parent))) &&
          existsSync(fileURLToPath(candidate))
        ) {
          return nextResolve(candidate.href, context);
        }
      }
      return nextResolve(specifier, context);
    },
  });
}
