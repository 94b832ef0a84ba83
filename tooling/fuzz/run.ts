/**
 * One fuzz run: start the service once per database (SQLite and PostgreSQL by default; Prism
 * in front of the first), build the same set-up objects in each, then for every operation of
 * the route table sample `runs` cases from a fixed seed and send each case to every database,
 * checking each answer on its own and then that all databases answered alike (same status,
 * same body once ids, timestamps and secrets are set aside: `compare.ts`); finally read
 * Prism's verdict per request.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import * as generated from '../../generated/routes.js';
import type { Dialect } from '../../server/db/types.js';
import { versions } from '../../server/versioning/index.js';
import type { FuzzCase } from './case-types.js';
import { checkAnswer } from './checks.js';
import { comparable, firstDifference, timestampProperties } from './compare.js';
import { curlCommand, send, type WireRequest, type WireResponse } from './http.js';
import { NOT_YET_FUZZED } from './not-yet-fuzzed.js';
import { operationCases } from './operation-cases.js';
import { type Prism, type PrismRequest, startPrism } from './prism.js';
import { ResponseChecker, type RouteTable } from './response-checker.js';
import { SchemaRegistry } from './schema-registry.js';
import { type Service, startService } from './service.js';
import { buildWorld, makeFresh, versionHeader } from './setup.js';
import { FRESH, unknownId, type World } from './world.js';

/** How to run. */
export interface FuzzOptions {
  /** The repository root (where `server/main.ts` and `spec/openapi.yaml` are). */
  root: string;
  seed: number;
  /** Cases per operation. */
  runs: number;
  /** Put Prism in front of the service and fail on its violations. */
  prism: boolean;
  /** Only these operationIds (all when empty). */
  only?: readonly string[];
  /** Where to write Prism's whole log at the end (for debugging a run). */
  prismLogFile?: string;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** The databases to run the service on; default both, SQLite first (Prism's). */
  databases?: readonly Dialect[];
  /** PostgreSQL database in which a fresh schema is made; default the local `test`. */
  postgresUrl?: string;
  /**
   * Pin the run to an older dated version: every request sends it as `PatientCare-Version`,
   * and cases and checks come from that version's route table
   * (`generated/versions/DATE/routes.ts`). Default: the latest, `generated/routes.ts`.
   */
  version?: {
    date: string;
    table: RouteTable;
    /** The version's document as a file, for Prism (a pinned run with Prism needs it). */
    document?: string;
  };
}

/** One failed case on one database, with what reproduces it. */
export interface FuzzFailure {
  operationId: string;
  database: Dialect;
  index: number;
  valid: boolean;
  why: string;
  problems: string[];
  status: number;
  curl: string;
  response: string;
}

/** Per operation: cases tried, how many valid, how many failed. */
export interface OperationFigure {
  operationId: string;
  cases: number;
  valid: number;
  invalid: number;
  failures: number;
  /** The slowest answer of the operation's cases (ms, at the client, any database). */
  slowestMs: number;
  /** Which case that was (`valid`, or why it is broken). */
  slowestWhy: string;
}

/** What a run found. */
export interface FuzzReport {
  seed: number;
  runs: number;
  operations: OperationFigure[];
  /** Requests answered per database (every case goes to each). */
  databases: { dialect: Dialect; cases: number }[];
  /** Cases whose databases answered differently. */
  mismatches: number;
  failures: FuzzFailure[];
  /** Requests Prism checked, and invalid cases whose request Prism did not flag (info). */
  prism: { requests: number; unflaggedInvalid: number } | null;
  seconds: number;
}

/** A seed per operation, so `FUZZ_ONLY` replays exactly the cases of a full run. */
function operationSeed(seed: number, operationId: string): number {
  let h = seed | 0;
  for (const ch of operationId) h = Math.imul(h ^ ch.charCodeAt(0), 0x9e3779b1);
  return h | 0;
}

function substitute(value: unknown, id: string): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll(JSON.stringify(FRESH).slice(1, -1), id));
}

interface Sent {
  c: FuzzCase;
  index: number;
  request: WireRequest;
  response: { status: number; text: string };
  failure?: FuzzFailure;
}

/** One database's service, its set-up objects, and its ids for the first one's. */
interface Target {
  dialect: Dialect;
  service: Service;
  world: World;
  /** First database's set-up id → this one's (empty for the first). */
  ids: Map<string, string>;
}

function sameObjects(from: World, to: World): Map<string, string> {
  const map = new Map<string, string>();
  for (const kind of Object.keys(from) as (keyof World)[]) {
    from[kind].forEach((id, i) => {
      const other = to[kind][i];
      if (other === undefined || other === id) return;
      map.set(id, other);
      // The FHIR face names the same objects with `-` for `_` (fhir-values.ts).
      map.set(id.replace('_', '-'), other.replace('_', '-'));
    });
  }
  return map;
}

function translate(text: string, ids: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [from, to] of ids) out = out.replaceAll(from, to);
  return out;
}

/** The case as `target` must receive it: its own fresh object, its own set-up ids. */
async function wire(c: FuzzCase, target: Target): Promise<WireRequest> {
  const { service, world, ids } = target;
  const id = c.fresh !== undefined ? await makeFresh(service, world, c.fresh) : unknownId('tok', 3);
  const path = translate(c.path, ids).replace(encodeURIComponent(FRESH), encodeURIComponent(id));
  const key = c.key === 'publishable' ? service.publishable : service.secret;
  let body: string | Buffer | undefined;
  if (c.body !== undefined) {
    if ('json' in c.body) body = translate(JSON.stringify(substitute(c.body.json, id)), ids);
    else if (typeof c.body.raw === 'string')
      body = translate(c.body.raw.replaceAll(FRESH, id), ids);
    // Ids are ASCII: through Latin-1 every other byte is kept as it is.
    else body = Buffer.from(translate(c.body.raw.toString('latin1'), ids), 'latin1');
  }
  const query = translate(c.query, ids);
  return {
    method: c.method,
    url: query === '' ? path : `${path}?${query}`,
    headers: {
      Authorization: `Bearer ${key}`,
      ...versionHeader(service),
      ...runVersion(c.headers, service),
    },
    ...(body === undefined ? {} : { body }),
  };
}

/**
 * A case's headers with a supported `PatientCare-Version` set to the run's version: the case's
 * body has the shape of the run's document, so a valid case must not ask for another version.
 * Unsupported values (the invalid cases) are sent as they are.
 */
function runVersion(headers: Record<string, string>, service: Service): Record<string, string> {
  const name = Object.keys(headers).find((h) => h.toLowerCase() === 'patientcare-version');
  const sent = name === undefined ? undefined : headers[name];
  if (name === undefined || sent === undefined || !versions.supported.includes(sent))
    return headers;
  return { ...headers, [name]: service.apiVersion ?? versions.latest };
}

function noAnswer(error: Error): WireResponse {
  // No answer at all (connection dropped, timeout): a failure of the case, not the run.
  return {
    status: 0,
    headers: {},
    text: '',
    body: undefined,
    parseError: `no answer: ${error.message}`,
  };
}

/** Runs the fuzzer and returns its figures; never throws for a failing case. */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  if (options.version !== undefined && options.prism && options.version.document === undefined) {
    throw new Error("a run pinned to a version with Prism needs that version's document");
  }
  // Prism reads a file; ours is the bundled document, whose version lists the bundler fills
  // from the modules (the YAML types no date).
  let prismSpec = options.version?.document;
  if (options.prism && prismSpec === undefined) {
    const { bundleSpec } = await import('../docs/spec-bundle.js');
    prismSpec = join(mkdtempSync(join(tmpdir(), 'patient-care-fuzz-spec-')), 'openapi.json');
    writeFileSync(
      prismSpec,
      JSON.stringify(await bundleSpec(join(options.root, 'spec/openapi.yaml'))),
    );
  }
  const { routes, componentSchemas } = options.version?.table ?? generated;
  const registry = new SchemaRegistry(Object.values(componentSchemas));
  const checker = new ResponseChecker({ routes, componentSchemas });
  const timestamps = timestampProperties(Object.values(componentSchemas));
  const dialects = options.databases ?? (['sqlite', 'postgres'] as const);
  if (dialects.length === 0) throw new Error('no database to fuzz');
  const services: Service[] = [];
  let prism: Prism | undefined;
  // One Prism per database, so both answers travel the same way (Prism changes some bodies
  // on their way, `null` → none); verdicts are read from the first one's log.
  const otherPrisms: Prism[] = [];
  const failureDir = mkdtempSync(join(tmpdir(), 'patient-care-fuzz-failures-'));
  const operations: OperationFigure[] = [];
  const sent: Sent[] = [];
  const throughPrism: Sent[] = [];
  const otherFailures: FuzzFailure[] = [];
  let mismatches = 0;
  try {
    for (const dialect of dialects) {
      const service = await startService(options.root, {
        dialect,
        ...(options.postgresUrl ? { postgresUrl: options.postgresUrl } : {}),
        // A pinned run is a client pinned by its account too: even a request whose header
        // names no supported version is answered in the run's version.
        ...(options.version ? { pin: options.version.date } : {}),
      });
      if (options.version !== undefined) service.apiVersion = options.version.date;
      services.push(service);
    }
    const primary = services[0];
    if (primary === undefined) throw new Error('no database to fuzz');
    if (options.prism) {
      const spec = prismSpec ?? 'spec/openapi.yaml';
      prism = await startPrism(options.root, spec, primary.baseUrl);
      for (const service of services.slice(1)) {
        otherPrisms.push(await startPrism(options.root, spec, service.baseUrl));
      }
    }
    const targets: Target[] = [];
    for (const service of services) {
      const world = await buildWorld(service);
      const ids = targets[0] === undefined ? new Map() : sameObjects(targets[0].world, world);
      targets.push({ dialect: service.dialect, service, world, ids });
    }
    const [reference] = targets;
    if (reference === undefined) throw new Error('no database to fuzz');
    const world = reference.world;
    const selected = routes.filter((r) =>
      options.only?.length
        ? options.only.includes(r.operationId)
        : !NOT_YET_FUZZED.has(r.operationId),
    );
    for (const route of selected) {
      const seed = operationSeed(options.seed, route.operationId);
      const cases = fc.sample(operationCases(route, registry, world), {
        seed,
        numRuns: options.runs,
      });
      const figure: OperationFigure = {
        operationId: route.operationId,
        cases: 0,
        valid: 0,
        invalid: 0,
        failures: 0,
        slowestMs: 0,
        slowestWhy: '',
      };
      for (const [index, c] of cases.entries()) {
        const answers: { target: Target; request: WireRequest; response: WireResponse }[] = [];
        for (const target of targets) {
          const request = await wire(c, target);
          const n = targets.indexOf(target);
          const targetPrism = n === 0 ? prism : otherPrisms[n - 1];
          const to =
            targetPrism !== undefined && !c.bypassPrism
              ? targetPrism.baseUrl
              : target.service.baseUrl;
          const started = performance.now();
          const response = await send(to, request).catch(noAnswer);
          const ms = performance.now() - started;
          if (ms > figure.slowestMs) {
            figure.slowestMs = ms;
            figure.slowestWhy = c.valid ? 'valid' : c.why;
          }
          answers.push({ target, request, response });
          if (target.service.exited()) {
            throw new Error(`the service on ${target.dialect} exited:\n${target.service.output()}`);
          }
        }
        const [answer] = answers;
        if (answer === undefined) throw new Error('no database answered');
        const first = comparable(answer.response.status, answer.response.text, timestamps);
        let differs = false;
        for (const [n, { target, request, response }] of answers.entries()) {
          const problems = checkAnswer(checker, c, request.url, response);
          if (n > 0) {
            const other = comparable(response.status, response.text, timestamps);
            const difference =
              other.status !== first.status
                ? `status ${first.status} vs ${other.status}`
                : firstDifference(first.body, other.body);
            if (difference !== undefined) {
              differs = true;
              problems.push(
                `databases differ (${reference.dialect} vs ${target.dialect}): ${difference}`,
              );
            }
          }
          const failure: FuzzFailure | undefined =
            problems.length === 0
              ? undefined
              : {
                  operationId: c.operationId,
                  database: target.dialect,
                  index,
                  valid: c.valid,
                  why: c.why,
                  problems,
                  status: response.status,
                  curl: curlCommand(
                    target.service.baseUrl,
                    request,
                    failureDir,
                    `${c.operationId}-${index}-${target.dialect}`,
                  ),
                  response: response.text.slice(0, 600),
                };
          if (n === 0) {
            const record: Sent = { c, index, request, response };
            if (failure !== undefined) record.failure = failure;
            sent.push(record);
            if (prism !== undefined && !c.bypassPrism) throughPrism.push(record);
          } else if (failure !== undefined) otherFailures.push(failure);
        }
        if (differs) mismatches++;
        figure.cases++;
        if (c.valid) figure.valid++;
        else figure.invalid++;
      }
      operations.push(figure);
      log(`${route.operationId}: ${figure.cases} cases × ${targets.length} databases`);
    }
    let prismFigure: FuzzReport['prism'] = null;
    if (prism !== undefined) prismFigure = await prismVerdict(prism, throughPrism, primary);
    const failures = [...sent.flatMap((s) => (s.failure ? [s.failure] : [])), ...otherFailures];
    for (const failure of failures) {
      const figure = operations.find((o) => o.operationId === failure.operationId);
      if (figure) figure.failures++;
    }
    const cases = operations.reduce((n, o) => n + o.cases, 0);
    return {
      seed: options.seed,
      runs: options.runs,
      operations,
      databases: targets.map((t) => ({ dialect: t.dialect, cases })),
      mismatches,
      failures,
      prism: prismFigure,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    if (prism !== undefined && options.prismLogFile)
      writeFileSync(options.prismLogFile, prism.log());
    await prism?.stop();
    for (const other of otherPrisms) await other.stop();
    for (const service of services) await service.stop();
  }
}

/**
 * Whether Prism's logged path is the path of `url`. Prism logs the WHATWG-parsed pathname
 * (dot segments resolved: an id of `..` is logged as its parent), sometimes decoded.
 */
function samePath(logged: string, url: string): boolean {
  const path = url.split('?')[0] ?? '';
  const parsed = new URL(path, 'http://prism.invalid').pathname;
  if (logged === path || logged === parsed) return true;
  try {
    return logged === decodeURIComponent(path) || logged === decodeURIComponent(parsed);
  } catch {
    return false;
  }
}

/** Ties Prism's logged requests to the records sent through it, in order. */
function align(
  logged: readonly PrismRequest[],
  records: readonly Sent[],
): (PrismRequest | undefined)[] {
  const out: (PrismRequest | undefined)[] = [];
  let j = 0;
  for (const record of records) {
    const entry = logged[j];
    if (
      entry !== undefined &&
      entry.method === record.request.method.toLowerCase() &&
      samePath(entry.path, record.request.url)
    ) {
      out.push(entry);
      j++;
    } else out.push(undefined);
  }
  return out;
}

/**
 * Waits for Prism's log to hold every request, then adds its violations to the cases that
 * caused them. Prism writes its log in batches, so requests to a path outside the spec are
 * sent after the last case until the log shows it: the batch with the last case then has
 * been written.
 */
async function prismVerdict(
  prism: Prism,
  records: Sent[],
  service: Service,
): Promise<FuzzReport['prism']> {
  let matched = align(prism.requests(), records);
  const deadline = Date.now() + 15_000;
  for (let n = 0; matched.at(-1) === undefined && Date.now() < deadline; n++) {
    await send(prism.baseUrl, { method: 'GET', url: `/fuzz-log-flush/${n}`, headers: {} }).catch(
      (error: Error) => {
        throw new Error(`Prism stopped answering (${error.message}):\n${prism.log().slice(-3000)}`);
      },
    );
    await new Promise((r) => setTimeout(r, 100));
    matched = align(prism.requests(), records);
  }
  const unlogged = matched.filter((m) => m === undefined).length;
  if (unlogged > 0) {
    throw new Error(
      `Prism's log misses ${unlogged} of the ${records.length} requests sent through it; cannot tie violations to cases:\n${prism.log().slice(-3000)}`,
    );
  }
  let unflaggedInvalid = 0;
  records.forEach((record, i) => {
    const violations = matched[i]?.violations ?? [];
    const problems: string[] = [];
    for (const v of violations) {
      if (v.side === 'response' || v.side === 'other') problems.push(`Prism: ${v.message}`);
      else if (record.c.valid) problems.push(`Prism flags the valid request: ${v.message}`);
    }
    if (!record.c.valid && !violations.some((v) => v.side === 'request')) unflaggedInvalid++;
    if (problems.length === 0) return;
    if (record.failure !== undefined) {
      record.failure.problems.push(...problems);
      return;
    }
    record.failure = {
      operationId: record.c.operationId,
      database: service.dialect,
      index: record.index,
      valid: record.c.valid,
      why: record.c.why,
      problems,
      status: record.response.status,
      curl: curlCommand(service.baseUrl, record.request, tmpdir(), `prism-${record.index}`),
      response: record.response.text.slice(0, 600),
    };
  });
  return { requests: records.length, unflaggedInvalid };
}
