// `npm start`, `npm test` and `npm run test:integration` run this first, in plain JavaScript, so
// that an older Node says what it needs in one line instead of a stack trace (or, with
// better-sqlite3 13 on Node 20, a segfault).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 24 || (major === 24 && minor < 18)) {
  console.error(
    `The Patient-Care API needs Node.js 24.18 or newer; this is ${process.version}. ` +
      'On a machine with an older Node, run `source .ci/use-node.sh` first (it puts Node 24 from the npm registry first on PATH).',
  );
  process.exit(1);
}
