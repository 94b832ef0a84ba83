// Redocly loads plugins with a plain `import()`, which reads JavaScript only. The rules are
// TypeScript (tooling/lint-rules/index.ts); tsx's scoped loader compiles them on the way in, so
// `redocly lint` works as is, from npm scripts, the CLI or an editor extension.
import { tsImport } from 'tsx/esm/api';

const { patientCarePlugin } = await tsImport('./index.ts', import.meta.url);

export default patientCarePlugin;
