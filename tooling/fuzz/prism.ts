/**
 * Stoplight Prism (the version package.json pins) in proxy mode in front of the service: an independent reading of
 * the spec. Prism forwards every request, validates request and response against
 * `spec/openapi.yaml`, and logs each mismatch as a `Violation` (without `--errors` it changes
 * no answer). It runs through `prism-proxy.ts` (why: see there), whose log is pino JSON. The
 * log is split per request on the `Request received` entry that starts each one, so every
 * violation is tied to the case that caused it (cases are sent one at a time).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { stopChild, waitForHttp } from '../node/child-process.js';
import { freePort } from '../node/ports.js';

/** One request as Prism logged it: method (lower case), path, and its violations. */
export interface PrismRequest {
  method: string;
  path: string;
  violations: Violation[];
}

/** One `Violation` line: which side (request or response) and the text after it. */
export interface Violation {
  side: 'request' | 'response' | 'other';
  message: string;
}

/** A running Prism proxy. */
export interface Prism {
  baseUrl: string;
  /** The requests Prism logged (after start-up), in order, with their violations. */
  requests(): PrismRequest[];
  /** How many requests Prism has logged as received. */
  received(): number;
  log(): string;
  stop(): Promise<void>;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: Prism colours some messages with ANSI escapes.
const ANSI = /\u001b\[[0-9;]*m/g;
const VIOLATION = /^Violation: (\S+) (.*)$/s;

interface LogEntry {
  msg?: unknown;
  input?: { method?: unknown; url?: { path?: unknown } };
}

/**
 * Prism's messages that are wrong about this spec, by exact text, each with why. Empty: none
 * seen so far. A message is added here only with the reason Prism is wrong, never to let a
 * real mismatch through.
 */
export const PRISM_FALSE_POSITIVES: readonly { message: string; why: string }[] = [];

/** Splits Prism's JSON log into requests, each with its violations. */
export function parsePrismLog(log: string): PrismRequest[] {
  const out: PrismRequest[] = [];
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: LogEntry;
    try {
      entry = JSON.parse(line) as LogEntry;
    } catch {
      continue; // a line still being written
    }
    const msg = typeof entry.msg === 'string' ? entry.msg.replace(ANSI, '') : '';
    if (msg === 'Request received') {
      out.push({
        method: String(entry.input?.method ?? '?').toLowerCase(),
        path: String(entry.input?.url?.path ?? '?'),
        violations: [],
      });
      continue;
    }
    const match = VIOLATION.exec(msg);
    if (match === null) continue;
    const [, where = '', message = ''] = match;
    if (PRISM_FALSE_POSITIVES.some((f) => f.message === `${where} ${message}`)) continue;
    const side = where.startsWith('request')
      ? 'request'
      : where.startsWith('response')
        ? 'response'
        : 'other';
    const last = out.at(-1) ?? { method: '?', path: '?', violations: [] };
    if (out.length === 0) out.push(last);
    last.violations.push({ side, message: `${where} ${message}` });
  }
  return out;
}

/** Starts Prism's proxy for `specPath` in front of `upstream` on a free port; waits until it answers. */
export async function startPrism(root: string, specPath: string, upstream: string): Promise<Prism> {
  const port = await freePort();
  const launcher = join(root, 'tooling', 'fuzz', 'prism-proxy.ts');
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', launcher, specPath, upstream, String(port)],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  );
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const alive = () => child.exitCode === null && child.signalCode === null;
  try {
    // Prism answers 404 on `/` only once the spec is loaded; polling any path is enough.
    await waitForHttp(`${baseUrl}/`, 60_000, alive);
  } catch (error) {
    await stopChild(child);
    throw new Error(`${(error as Error).message}\n${log}`);
  }
  // The readiness probe itself is a request Prism logs; let its lines arrive, then skip them.
  await new Promise((r) => setTimeout(r, 300));
  const offset = parsePrismLog(log).length;
  return {
    baseUrl,
    requests: () => parsePrismLog(log).slice(offset),
    received: () => parsePrismLog(log).length - offset,
    log: () => log,
    stop: () => stopChild(child),
  };
}
