// The production entry, bundled as build/server/main.js. Plain JavaScript so that an older
// Node reaches the version check: ES modules evaluate every static import before the
// importer's body, and better-sqlite3 13 segfaults on Node 20 while loading, so the check
// (the same file every npm script runs first) is a static import and the service comes after
// it through a dynamic one.
import '../scripts/check-node.mjs';
import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';

// WORKERS=N (server/cluster.ts): this file is the primary that forks N processes of itself,
// whether `npm start` or a production install's `node build/server/main.js` loaded it.
if (cluster.isPrimary) {
  const { runWorkers, workerCount } = await import('./cluster.ts');
  const workers = workerCount(process.env);
  if ('error' in workers) {
    process.stderr.write(`patient-care: ${workers.error}\n`);
    process.exit(2);
  }
  if (workers.count > 1) {
    process.exit(await runWorkers(fileURLToPath(import.meta.url), workers.count));
  }
}
await import('./main.ts');
