// Every npm script that runs our code runs this first, in plain JavaScript, so that an older
// Node says what it needs in one line instead of a stack trace (or, with better-sqlite3 13 on
// Node 20, a segfault). Normally it passes: `npm ci` installs Node 24 from the npm registry
// (the `node` devDependency) into node_modules/.bin, which npm puts first on PATH for scripts.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 24 || (major === 24 && minor < 18)) {
  console.error(
    `The Patient-Care API needs Node.js 24.18 or newer; this is ${process.version}. ` +
      'Run `npm ci` (it installs Node 24 into node_modules for the npm scripts), or `source .ci/use-node.sh` to put it first on PATH in this shell.',
  );
  process.exit(1);
}
