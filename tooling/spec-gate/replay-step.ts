/**
 * The replay step (docs/design.md#versioning): proof that every older supported version's
 * request contract still holds. For each version V older than the latest, the example requests
 * of V's contract — its released file (`spec/released/V.json`) when there is one, and the
 * document the head's modules derive for V — are sent pinned with `PatientCare-Version: V` to
 * the service built in this process from the head spec (route tables made from the documents,
 * so a stale `generated/` cannot hide a break; the drift step covers that), on an in-memory
 * SQLite database with a fresh test secret and publishable key.
 *
 * The rule: an answer passes unless it is a 5xx, a 400 validation refusal (`parameter_*`,
 * `body_*`), or a 401/403/415 (the request never reached validation, so nothing was proven).
 * Anything else passes: the ids in the examples name objects that do not exist, so a 404
 * `resource_missing` (or a 409, a 400 `token_invalid`, or a 400 `idempotency_key_reused` when
 * two operations' examples share one key: the service looks keys up after validation) is an
 * answer the version's validation already accepted, which is all the replay asks.
 */
import type { FastifyInstance } from 'fastify';
import { routeTableOf } from '../../generators/route-table.js';
import { buildApp } from '../../server/app.js';
import { openDb } from '../../server/db/open.js';
import { createKey } from '../../server/keys/index.js';
import { deriveDocument } from '../../server/versioning/derive.js';
import { createRegistry } from '../../server/versioning/registry.js';
import type { VersionChange } from '../../server/versioning/version-change.js';
import { worktreeReader } from './git-base.js';
import { loadSpec } from './load-spec.js';
import { readReleased, releasedVersions } from './released.js';
import { type ExampleRequest, exampleRequests } from './replay-requests.js';
import type { StepOutcome } from './step-types.js';
import { loadVersionChanges } from './version-coverage.js';

export interface ReplayOptions {
  root: string;
  /** The head spec, relative to `root`. */
  spec: string;
  /** Default: the modules of `root` (`spec/versions/index.ts`). */
  versionChanges?: readonly VersionChange[];
  /** Default: the head spec read from `root` (tests pass an edited copy). */
  document?: Record<string, unknown>;
}

/** Whether an answer fails the replay (the rule above). */
export function replayProblem(status: number, code: string | undefined): boolean {
  if (status >= 500) return true;
  if (status === 401 || status === 403 || status === 415) return true;
  return status === 400 && /^(parameter_|body_)/.test(code ?? '');
}

function errorOf(payload: string): { code?: string; message?: string } {
  try {
    const parsed = JSON.parse(payload) as { error?: { code?: string; message?: string } };
    return parsed.error ?? {};
  } catch {
    return { message: payload.slice(0, 200) };
  }
}

async function send(
  app: FastifyInstance,
  request: ExampleRequest,
  version: string,
  keys: { secret: string; publishable: string },
): Promise<{ status: number; code?: string; message?: string }> {
  const key =
    request.keyKinds !== null && !request.keyKinds.includes('secret')
      ? keys.publishable
      : keys.secret;
  const res = await app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: {
      ...request.headers,
      ...(request.public ? {} : { authorization: `Bearer ${key}` }),
      'patientcare-version': version,
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(request.body === undefined ? {} : { payload: JSON.stringify(request.body) }),
  });
  return { status: res.statusCode, ...errorOf(res.payload) };
}

/** Runs the replay; never throws (a crash is reported by the gate as the step's failure). */
export async function runReplayCheck(opts: ReplayOptions): Promise<StepOutcome> {
  const modules = opts.versionChanges ?? (await loadVersionChanges(opts.root));
  if (modules === undefined || modules.length === 0) {
    return { status: 'skip', summary: 'no version-change modules', details: [] };
  }
  const head =
    opts.document ??
    ((await loadSpec(opts.spec, { root: opts.root, read: worktreeReader(opts.root) }))
      .document as Record<string, unknown>);
  const registry = createRegistry(modules);
  const older = registry.supported.filter((v) => v !== registry.latest);
  if (older.length === 0) return { status: 'pass', summary: 'no older version', details: [] };
  const released = new Set(releasedVersions(opts.root));
  const derived = new Map(older.map((v) => [v, deriveDocument(head, registry, v)]));
  const latestTable = routeTableOf(head);
  const db = await openDb('sqlite::memory:');
  const app = await buildApp({
    db,
    audit: null,
    routes: latestTable.routes,
    componentSchemas: latestTable.componentSchemas,
    versionTables: async (version) => {
      const document = derived.get(version);
      if (document === undefined) throw new Error(`no derived document for ${version}`);
      return routeTableOf(document);
    },
    config: { rateLimits: { liveRps: 1_000_000, testRps: 1_000_000, anonymousRps: 1_000_000 } },
    // Each route's validators compiled on its first request, as in the dev loop: the replay
    // reaches a few dozen operations, and compiling every latest route up front was ~0.5 s of
    // the gate's CPU. The same validators, so the same answers.
    compileValidators: 'first-use',
  });
  const details: string[] = [];
  let sent = 0;
  const statuses = new Map<number, number>();
  try {
    const keys = {
      secret: (await createKey(db, { kind: 'secret', livemode: false })).secret,
      publishable: (await createKey(db, { kind: 'publishable', livemode: false })).secret,
    };
    for (const version of older) {
      const sources = [
        ...(released.has(version)
          ? [readReleased(opts.root, version) as Record<string, unknown>]
          : []),
        derived.get(version) ?? {},
      ];
      const seen = new Set<string>();
      for (const source of sources) {
        for (const request of exampleRequests(source)) {
          const id = JSON.stringify([request.method, request.url, request.headers, request.body]);
          if (seen.has(id)) continue;
          seen.add(id);
          sent += 1;
          const answer = await send(app, request, version, keys);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (replayProblem(answer.status, answer.code)) {
            details.push(
              `replay FAIL ${version} ${request.operationId}: ${answer.status} ${answer.code ?? '-'} ${answer.message ?? ''} (${request.method} ${request.url})`,
            );
          }
        }
      }
    }
  } finally {
    await app.close();
    await db.close();
  }
  const tally = [...statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  const summary = `${sent} example request(s) of ${older.join(', ')} replayed (${tally})`;
  return details.length === 0
    ? { status: 'pass', summary, details: [] }
    : { status: 'fail', summary: `${summary}, ${details.length} refused`, details };
}
