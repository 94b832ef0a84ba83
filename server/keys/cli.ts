import { parseArgs } from 'node:util';
import type { Db } from '../db/types.js';
import { parseDuration } from './duration.js';
import type { KeyKind } from './format.js';
import { type ApiKeyRecord, keyState } from './record.js';
import { createKey, KeyOptionsError, listKeys, revokeKey } from './store.js';

/** Where the command writes; injected so tests can read it. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const KEYS_USAGE = `usage: npm run keys -- <command>
  create [--secret | --restricted | --publishable] [--live]
         [--scopes a:read,b:write] [--allow-ip CIDR]... [--origin URL]...
         [--expires-in 30d] [--rate-limit N] [--description TEXT]
  list   [--all]            (--all includes ephemeral keys)
  revoke key_…`;

/**
 * `keys create|list|revoke`. Returns the exit code: 0 done, 1 no such key, 2 bad usage.
 * The secret is printed once, by `create`; `list` shows only a hint.
 */
export async function keysCli(db: Db, argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'create') return await create(db, rest, io);
    if (command === 'list') return await list(db, rest, io);
    if (command === 'revoke') return await revoke(db, rest, io);
    io.err(KEYS_USAGE);
    return 2;
  } catch (err) {
    if (
      err instanceof KeyOptionsError ||
      (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      io.err(`keys: ${(err as Error).message}`);
      io.err(KEYS_USAGE);
      return 2;
    }
    throw err;
  }
}

async function create(db: Db, argv: string[], io: CliIo): Promise<number> {
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
  const { key, secret } = await createKey(db, {
    kind,
    livemode: values.live === true,
    ...(scopes ? { scopes } : {}),
    allowedIps: values['allow-ip'] ?? [],
    allowedOrigins: values.origin ?? [],
    ...(expiresInSeconds === undefined ? {} : { expiresInSeconds }),
    ...(rateLimit === undefined ? {} : { rateLimit }),
    description: values.description ?? null,
  });
  io.out(`created ${key.id} (${describe(key)})`);
  io.out(`secret: ${secret}`);
  io.out('Store the secret now: it is not kept and cannot be shown again.');
  return 0;
}

async function list(db: Db, argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args: argv, strict: true, options: { all: { type: 'boolean' } } });
  const keys = await listKeys(db, { includeEphemeral: values.all === true });
  const header = ['id', 'kind', 'mode', 'key', 'scopes', 'created', 'expires', 'revoked', 'state'];
  const rows = keys.map((key) => [
    key.id,
    key.kind,
    key.livemode ? 'live' : 'test',
    key.hint,
    key.kind === 'secret' ? '(all)' : key.scopes.join(',') || '-',
    date(key.created),
    date(key.expiresAt),
    date(key.revokedAt),
    keyState(key),
  ]);
  for (const line of table([header, ...rows])) io.out(line);
  if (keys.length === 0) io.out('(no keys)');
  return 0;
}

async function revoke(db: Db, argv: string[], io: CliIo): Promise<number> {
  const { positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {},
  });
  if (positionals.length !== 1) throw new KeyOptionsError('revoke takes one key id');
  const id = positionals[0]!;
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
  return parts.join('; ');
}

function date(seconds: number | null): string {
  return seconds === null ? '-' : new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)));
  return rows.map((row) =>
    row
      .map((cell, col) => cell.padEnd(widths[col]!))
      .join('  ')
      .trimEnd(),
  );
}
