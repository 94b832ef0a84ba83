/**
 * `prism proxy` without the CLI's log printer: the same Prism packages and the same settings
 * the CLI's proxy command uses (request and response validation, security checks, no
 * `--errors`, no CORS), but the log goes to stdout as pino's JSON lines.
 *
 * Why not the CLI itself: it pipes its JSON log through a pretty-printer that re-parses each
 * line with `jsonrepair`, and for some requests (generated bodies with unusual Unicode) that
 * fails and the line is replaced by "Invalid JSON and unable to correct" — losing the
 * "Request received" line, and with it possibly a `Violation`. A checker that can silently
 * drop violations is no checker, so the fuzzer reads Prism's own JSON instead. One Prism bug
 * is worked around below (`sl-violations`).
 *
 * Usage: node --import tsx tooling/fuzz/prism-proxy.ts <spec> <upstream> <port>
 */
import { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';

// Prism's packages come with `@stoplight/prism-cli` (pinned in package.json); resolve them from it,
// so the versions are the CLI's own wherever npm placed them.
const cli = createRequire(
  createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json'),
);

interface PrismServer {
  listen(port: number, host: string): Promise<string>;
}
const { createLogger } = cli('@stoplight/prism-core') as {
  createLogger(
    name: string,
    options: object,
    destination: NodeJS.WritableStream,
  ): {
    child(bindings: object): unknown;
  };
};
const { getHttpOperationsFromSpec } = cli('@stoplight/prism-http') as {
  getHttpOperationsFromSpec(document: string): Promise<unknown[]>;
};
const { createServer } = cli('@stoplight/prism-http-server') as {
  createServer(operations: unknown[], options: object): PrismServer;
};

/**
 * A Prism bug worked around (seen in 5.14.2, still in prism-http-server 5.16.0's
 * `addViolationHeader`): it copies its violation messages, which quote property names
 * and paths from the request (`metadata.<key>`), into an `sl-violations` response header with
 * `setHeader`; a name outside Latin-1 makes Node throw "Invalid character in header content"
 * outside any handler, and the whole proxy exits. Here that one header's non-ASCII characters
 * are written as JSON `\uXXXX` escapes (the header stays the same JSON); every other header,
 * and Prism's validation and log, are untouched.
 */
const setHeader = ServerResponse.prototype.setHeader;
ServerResponse.prototype.setHeader = function patchedSetHeader(name, value) {
  const safe =
    String(name).toLowerCase() === 'sl-violations' && typeof value === 'string'
      ? value.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      : value;
  return setHeader.call(this, name, safe);
};

const [document, upstream, port] = process.argv.slice(2);
if (document === undefined || upstream === undefined || port === undefined) {
  process.stderr.write('usage: prism-proxy.ts <spec> <upstream> <port>\n');
  process.exit(2);
}

const logger = createLogger('CLI', { level: 'info' }, process.stdout);
const operations = await getHttpOperationsFromSpec(document);
const server = createServer(operations, {
  cors: false,
  config: {
    validateRequest: true,
    validateResponse: true,
    checkSecurity: true,
    errors: false,
    isProxy: true,
    upstream: new URL(upstream),
    upstreamProxy: undefined,
    mock: { dynamic: false },
  },
  components: { logger: logger.child({ name: 'HTTP SERVER' }) },
});
await server.listen(Number(port), '127.0.0.1');
