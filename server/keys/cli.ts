import { parseArgs } from 'node:util';
import type { Db } from '../db/types.js';
import { versions } from '../versioning/index.js';
import { accountApiVersion, setAccountApiVersion } from './account.js';
import { parseDuration } from './duration.js';
import type { KeyKind } from './format.js';
import { type ApiKeyRecord, keyState } from './record.js';
import { createKey, KeyOptionsError, listKeys, revokeKey } from './store.js';

/** Where the command writes; injected so tests can read it. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const KEYS_USAGE = `npm run keys -- <command>
  create [--secret | --restricted | --publishable] [--live]
         [--scopes a:read,b:write] [--allow-ip CIDR]... [--origin URL]...
         [--expires-in 30d] [--rate-limit N] [--description TEXT]
         [--require-actor]  (every request must send PatientCare-Actor)
  list   [--all]            (--all includes ephemeral keys)
  revoke key_…
  version [DATE]            the account's pinned API version; with DATE, pin it to DATE`;

/** A parsed `keys` command line. */
export type KeysCommand =
  | { readonly command: 'create'; readonly options: CreateKeyOptions }
  | { readonly command: 'list'; readonly all: boolean }
  | { readonly command: 'revoke'; readonly id: string }
  | { readonly command: 'version'; readonly set: string | null };

type CreateKeyOptions = Parameters<typeof createKey>[1];

/**
 * Parses `create|list|revoke …` without touching anything; throws `KeyOptionsError` (a usage
 * error) for anything it cannot accept.
 */
export function parseKeysCommand(argv: readonly string[]): KeysCommand {
  const [command, ...rest] = argv;
  try {
    if (command === 'create') return { command, options: parseCreate(rest) };
    if (command === 'list') {
      const { values } = parseArgs({
        args: rest,
        strict: true,
        options: { all: { type: 'boolean' } },
      });
      return { command, all: values.all === true };
    }
    if (command === 'revoke') {
      const { positionals } = parseArgs({
        args: rest,
        strict: true,
        allowPositionals: true,
        options: {},
      });
      if (positionals.length !== 1) throw new KeyOptionsError('revoke takes one key id');
      return { command, id: positionals[0] ?? '' };
    }
    if (command === 'version') {
      const { positionals } = parseArgs({
        args: rest,
        strict: true,
        allowPositionals: true,
        options: {},
      });
      if (positionals.length > 1) throw new KeyOptionsError('version takes at most one date');
      const set = positionals[0] ?? null;
      if (set !== null && !versions.supported.includes(set)) {
        throw new KeyOptionsError(
          `unknown version ${set}; supported versions: ${versions.supported.join(', ')}`,
        );
      }
      return { command, set };
    }
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      throw new KeyOptionsError((err as Error).message);
    }
    throw err;
  }
  throw new KeyOptionsError(
    command === undefined
      ? 'name a command: create, list, revoke or version'
      : `unknown command "${command}"; commands: create, list, revoke, version`,
  );
}

/**
 * Runs a parsed `keys` command. Returns the exit code: 0 done, 1 no such key, 2 bad options
 * (`createKey` refusing a combination). The secret is printed once, by `create`; `list` shows
 * only a hint.
 */
export async function runKeysCommand(db: Db, parsed: KeysCommand, io: CliIo): Promise<number> {
  if (parsed.command === 'create') return create(db, parsed.options, io);
  if (parsed.command === 'list') return list(db, parsed.all, io);
  if (parsed.command === 'version') return version(db, parsed.set, io);
  return revoke(db, parsed.id, io);
}

/** Shows the account's pinned version, or pins it to `set`. */
async function version(db: Db, set: string | null, io: CliIo): Promise<number> {
  if (set !== null) {
    const before = await accountApiVersion(db);
    await setAccountApiVersion(db, set, Date.now());
    io.out(`API version: ${set} (was ${before ?? 'not pinned'})`);
    io.out('Requests without a PatientCare-Version header are now served in it.');
    return 0;
  }
  const pinned = await accountApiVersion(db);
  io.out(
    pinned === null
      ? `API version: not pinned yet (the first key pins it to ${versions.latest})`
      : `API version: ${pinned}`,
  );
  io.out(`Supported: ${versions.supported.join(', ')} (latest ${versions.latest})`);
  return 0;
}

function parseCreate(argv: string[]): CreateKeyOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      secret: { type: 'boolean' },
      restricted: { type: 'boolean' },
      publishable: { type: 'boolean' },
      live: { type: 'boolean' },
      scopes: { type: 'string' },
      'allow-ip': { type: 'string', multiple: true },
      origin: { type: 'string', multiple: true },
      'expires-in': { type: 'string' },
      'rate-limit': { type: 'string' },
      description: { type: 'string' },
      'require-actor': { type: 'boolean' },
    },
  });
  const kinds = (['secret', 'restricted', 'publishable'] as const).filter((k) => values[k]);
  if (kinds.length > 1)
    throw new KeyOptionsError('choose one of --secret, --restricted, --publishable');
  const kind: KeyKind = kinds[0] ?? 'secret';
  let expiresInSeconds: number | undefined;
  if (values['expires-in'] !== undefined) {
    expiresInSeconds = parseDuration(values['expires-in']);
    if (expiresInSeconds === undefined)
      throw new KeyOptionsError('--expires-in takes e.g. 30d, 12h, 15m');
  }
  let rateLimit: number | undefined;
  if (values['rate-limit'] !== undefined) {
    rateLimit = Number(values['rate-limit']);
    if (!Number.isInteger(rateLimit))
      throw new KeyOptionsError('--rate-limit takes a whole number');
  }
  const scopes = values.scopes
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    kind,
    livemode: values.live === true,
    ...(scopes ? { scopes } : {}),
    allowedIps: values['allow-ip'] ?? [],
    allowedOrigins: values.origin ?? [],
    ...(expiresInSeconds === undefined ? {} : { expiresInSeconds }),
    ...(rateLimit === undefined ? {} : { rateLimit }),
    description: values.description ?? null,
    ...(values['require-actor'] === true ? { requireActor: true } : {}),
  };
}

async function create(db: Db, options: CreateKeyOptions, io: CliIo): Promise<number> {
  let created: Awaited<ReturnType<typeof createKey>>;
  try {
    created = await createKey(db, options);
  } catch (err) {
    if (!(err instanceof KeyOptionsError)) throw err;
    io.err(`keys: ${err.message} (see --help)`);
    return 2;
  }
  const { key, secret } = created;
  io.out(`created ${key.id} (${describe(key)})`);
  io.out(`secret: ${secret}`);
  io.out('Store the secret now: it is not kept and cannot be shown again.');
  return 0;
}

async function list(db: Db, all: boolean, io: CliIo): Promise<number> {
  const keys = await listKeys(db, { includeEphemeral: all });
  const header = [
    'id',
    'kind',
    'mode',
    'key',
    'scopes',
    'actor',
    'created',
    'expires',
    'revoked',
    'state',
  ];
  const rows = keys.map((key) => [
    key.id,
    key.kind,
    key.livemode ? 'live' : 'test',
    key.hint,
    key.kind === 'secret' ? '(all)' : key.scopes.join(',') || '-',
    // Whether the key's requests must name their actor, or whom an ephemeral key acts for.
    key.requireActor ? 'required' : (key.actor ?? '-'),
    date(key.created),
    date(key.expiresAt),
    date(key.revokedAt),
    keyState(key),
  ]);
  for (const line of table([header, ...rows])) io.out(line);
  if (keys.length === 0) io.out('(no keys)');
  return 0;
}

async function revoke(db: Db, id: string, io: CliIo): Promise<number> {
  if (await revokeKey(db, id)) {
    io.out(`revoked ${id}`);
    return 0;
  }
  io.err(`keys: no active key ${id}`);
  return 1;
}

function describe(key: ApiKeyRecord): string {
  const parts = [`${key.kind}, ${key.livemode ? 'live' : 'test'}`];
  if (key.scopes.length > 0) parts.push(`scopes ${key.scopes.join(',')}`);
  if (key.allowedIps.length > 0) parts.push(`from ${key.allowedIps.join(',')}`);
  if (key.allowedOrigins.length > 0) parts.push(`origins ${key.allowedOrigins.join(',')}`);
  if (key.expiresAt !== null) parts.push(`expires ${date(key.expiresAt)}`);
  if (key.rateLimit !== null) parts.push(`${key.rateLimit} req/s`);
  if (key.requireActor) parts.push('requires PatientCare-Actor');
  if (key.actor !== null) parts.push(`actor ${key.actor}`);
  return parts.join('; ');
}

function date(seconds: number | null): string {
  return seconds === null ? '-' : new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

function table(rows: string[][]): string[] {
  const columns = rows[0]?.length ?? 0;
  const widths = Array.from({ length: columns }, (_, col) =>
    Math.max(...rows.map((row) => (row[col] ?? '').length)),
  );
  return rows.map((row) =>
    row
      .map((cell, col) => cell.padEnd(widths[col] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}
