#!/usr/bin/env node
// `patient-care` (`node build/cli.js`), bundled by tooling/build/build.ts. Plain JavaScript
// with the Node version check as its one static import, as server/entry.mjs: an older Node
// prints the one line every npm script prints instead of crashing while loading
// better-sqlite3; the commands come after it through a dynamic import.
import '../../scripts/check-node.mjs';

const { runOperatorCli } = await import('./main.ts');
await runOperatorCli(process.argv.slice(2));
