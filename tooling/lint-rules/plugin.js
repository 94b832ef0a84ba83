// Redocly loads plugins with a plain `import()`. The rules are TypeScript (index.ts): Node 24
// strips their types itself, and tooling/node/ts-resolve.mjs maps their `./x.js` imports to
// `./x.ts`, so `redocly lint` works as is (npm run lint:spec, the CLI, an editor extension)
// with no build step and no loader. The hook must be in place before index.ts is resolved,
// hence the dynamic import.
import '../node/ts-resolve.mjs';

const { patientCarePlugin } = await import('./index.ts');

export default patientCarePlugin;
