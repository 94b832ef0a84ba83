// The production entry, bundled as build/server/main.js. Plain JavaScript so that an older
// Node reaches the version check: ES modules evaluate every static import before the
// importer's body, and better-sqlite3 13 segfaults on Node 20 while loading, so the check
// (the same file every npm script runs first) is a static import and the service comes after
// it through a dynamic one.
import '../scripts/check-node.mjs';

await import('./main.ts');
