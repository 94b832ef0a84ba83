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
import { type Booking, bookingShape, FRESH, unknownId, type World } from './world.js';

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
  /** How the run's version books an appointment (the same on every database). */
  booking: Booking;
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
  const { service, world, booking, ids } = target;
  const id =
    c.fresh !== undefined ? await makeFresh(service, world, booking, c.fresh) : unknownId('tok', 3);
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

/** What a run has started, stopped at its end whatever happened. */
interface Running {
  services: Service[];
  /** In front of the first database's service; its log gives the verdicts. */
  prism?: Prism;
  /**
   * One Prism per other database, so both answers travel the same way (Prism changes some
   * bodies on their way, `null` → none).
   */
  otherPrisms: Prism[];
}

/** What the cases of a run share, and what they add to. */
interface RunState {
  checker: ResponseChecker;
  timestamps: ReturnType<typeof timestampProperties>;
  failureDir: string;
  targets: Target[];
  running: Running;
  /** The first database's answers, each with its failure if any. */
  sent: Sent[];
  /** The subset of `sent` that went through Prism. */
  throughPrism: Sent[];
  /** Failures on the other databases. */
  otherFailures: FuzzFailure[];
  mismatches: number;
}

/**
 * The document Prism reads, as a file: the pinned version's, or ours bundled (the bundler
 * fills the version lists from the modules; the YAML types no date). None without Prism.
 */
async function prismDocument(options: FuzzOptions): Promise<string | undefined> {
  if (options.version !== undefined && options.prism && options.version.document === undefined) {
    throw new Error("a run pinned to a version with Prism needs that version's document");
  }
  if (!options.prism || options.version?.document !== undefined) return options.version?.document;
  const { bundleSpec } = await import('../docs/spec-bundle.js');
  const file = join(mkdtempSync(join(tmpdir(), 'patient-care-fuzz-spec-')), 'openapi.json');
  writeFileSync(file, JSON.stringify(await bundleSpec(join(options.root, 'spec/openapi.yaml'))));
  return file;
}

/** Starts the service once per database, into `running` (so a failure still stops them). */
async function startServices(options: FuzzOptions, running: Running): Promise<void> {
  const dialects = options.databases ?? (['sqlite', 'postgres'] as const);
  if (dialects.length === 0) throw new Error('no database to fuzz');
  for (const dialect of dialects) {
    const service = await startService(options.root, {
      dialect,
      ...(options.postgresUrl ? { postgresUrl: options.postgresUrl } : {}),
      // A pinned run is a client pinned by its account too: even a request whose header
      // names no supported version is answered in the run's version.
      ...(options.version ? { pin: options.version.date } : {}),
    });
    if (options.version !== undefined) service.apiVersion = options.version.date;
    running.services.push(service);
  }
}

/** A Prism in front of every service, into `running`. */
async function startPrisms(root: string, spec: string, running: Running): Promise<void> {
  const [primary, ...others] = running.services;
  if (primary === undefined) throw new Error('no database to fuzz');
  running.prism = await startPrism(root, spec, primary.baseUrl);
  for (const service of others)
    running.otherPrisms.push(await startPrism(root, spec, service.baseUrl));
}

/** The same set-up objects on every database, and each one's ids for the first one's. */
async function buildTargets(services: readonly Service[], booking: Booking): Promise<Target[]> {
  const targets: Target[] = [];
  for (const service of services) {
    const world = await buildWorld(service, booking);
    const ids = targets[0] === undefined ? new Map() : sameObjects(targets[0].world, world);
    targets.push({ dialect: service.dialect, service, world, booking, ids });
  }
  return targets;
}

/** The operations to fuzz: those named in `only`, else all but the ones not yet fuzzed. */
function selectRoutes(routes: RouteTable['routes'], only: readonly string[] | undefined) {
  return routes.filter((r) =>
    only?.length ? only.includes(r.operationId) : !NOT_YET_FUZZED.has(r.operationId),
  );
}

interface Answer {
  target: Target;
  request: WireRequest;
  response: WireResponse;
  /** How long the answer took, at the client. */
  ms: number;
}

/** Sends one case to every database (through its Prism unless the case bypasses it). */
async function sendEverywhere(c: FuzzCase, targets: readonly Target[], running: Running) {
  const answers: Answer[] = [];
  for (const [n, target] of targets.entries()) {
    const request = await wire(c, target);
    const prism = n === 0 ? running.prism : running.otherPrisms[n - 1];
    const to = prism !== undefined && !c.bypassPrism ? prism.baseUrl : target.service.baseUrl;
    const started = performance.now();
    const response = await send(to, request).catch(noAnswer);
    answers.push({ target, request, response, ms: performance.now() - started });
    if (target.service.exited()) {
      throw new Error(`the service on ${target.dialect} exited:\n${target.service.output()}`);
    }
  }
  return answers;
}

/**
 * Checks every answer to a case on its own and against the first database's, and records
 * them in `state`; whether the databases answered differently.
 */
function judgeCase(c: FuzzCase, index: number, answers: readonly Answer[], state: RunState) {
  const [answer] = answers;
  if (answer === undefined) throw new Error('no database answered');
  const first = comparable(answer.response.status, answer.response.text, state.timestamps);
  let differs = false;
  for (const [n, { target, request, response }] of answers.entries()) {
    const problems = checkAnswer(state.checker, c, request.url, response);
    if (n > 0) {
      const other = comparable(response.status, response.text, state.timestamps);
      const difference =
        other.status !== first.status
          ? `status ${first.status} vs ${other.status}`
          : firstDifference(first.body, other.body);
      if (difference !== undefined) {
        differs = true;
        problems.push(
          `databases differ (${answer.target.dialect} vs ${target.dialect}): ${difference}`,
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
              state.failureDir,
              `${c.operationId}-${index}-${target.dialect}`,
            ),
            response: response.text.slice(0, 600),
          };
    if (n === 0) {
      const record: Sent = { c, index, request, response };
      if (failure !== undefined) record.failure = failure;
      state.sent.push(record);
      if (state.running.prism !== undefined && !c.bypassPrism) state.throughPrism.push(record);
    } else if (failure !== undefined) state.otherFailures.push(failure);
  }
  return differs;
}

/** Samples an operation's cases from its own seed, sends and judges each. */
async function fuzzOperation(
  route: RouteTable['routes'][number],
  registry: SchemaRegistry,
  options: FuzzOptions,
  state: RunState,
): Promise<OperationFigure> {
  const world = state.targets[0]?.world;
  if (world === undefined) throw new Error('no database to fuzz');
  const cases = fc.sample(operationCases(route, registry, world), {
    seed: operationSeed(options.seed, route.operationId),
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
    const answers = await sendEverywhere(c, state.targets, state.running);
    for (const { ms } of answers) {
      if (ms > figure.slowestMs) {
        figure.slowestMs = ms;
        figure.slowestWhy = c.valid ? 'valid' : c.why;
      }
    }
    if (judgeCase(c, index, answers, state)) state.mismatches++;
    figure.cases++;
    if (c.valid) figure.valid++;
    else figure.invalid++;
  }
  return figure;
}

/** Every failure, counted against its operation. */
function collectFailures(state: RunState, operations: OperationFigure[]): FuzzFailure[] {
  const failures = [
    ...state.sent.flatMap((s) => (s.failure ? [s.failure] : [])),
    ...state.otherFailures,
  ];
  for (const failure of failures) {
    const figure = operations.find((o) => o.operationId === failure.operationId);
    if (figure) figure.failures++;
  }
  return failures;
}

/** Stops what the run started, keeping Prism's log when asked. */
async function stopRunning(running: Running, prismLogFile: string | undefined): Promise<void> {
  if (running.prism !== undefined && prismLogFile) writeFileSync(prismLogFile, running.prism.log());
  await running.prism?.stop();
  for (const other of running.otherPrisms) await other.stop();
  for (const service of running.services) await service.stop();
}

/**
 * Runs the fuzzer and returns its figures; never throws for a failing case. The phases:
 * Prism's document, the services, their Prisms, the set-up objects, every operation's cases,
 * Prism's verdict, the report.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const prismSpec = await prismDocument(options);
  const { routes, componentSchemas } = options.version?.table ?? generated;
  const registry = new SchemaRegistry(Object.values(componentSchemas));
  const running: Running = { services: [], otherPrisms: [] };
  try {
    await startServices(options, running);
    if (options.prism) await startPrisms(options.root, prismSpec ?? 'spec/openapi.yaml', running);
    const state: RunState = {
      checker: new ResponseChecker({ routes, componentSchemas }),
      timestamps: timestampProperties(Object.values(componentSchemas)),
      failureDir: mkdtempSync(join(tmpdir(), 'patient-care-fuzz-failures-')),
      targets: await buildTargets(running.services, bookingShape(registry)),
      running,
      sent: [],
      throughPrism: [],
      otherFailures: [],
      mismatches: 0,
    };
    const operations: OperationFigure[] = [];
    for (const route of selectRoutes(routes, options.only)) {
      const figure = await fuzzOperation(route, registry, options, state);
      operations.push(figure);
      log(`${route.operationId}: ${figure.cases} cases × ${state.targets.length} databases`);
    }
    const [primary] = running.services;
    const prismFigure =
      running.prism !== undefined && primary !== undefined
        ? await prismVerdict(running.prism, state.throughPrism, primary)
        : null;
    const failures = collectFailures(state, operations);
    const cases = operations.reduce((n, o) => n + o.cases, 0);
    return {
      seed: options.seed,
      runs: options.runs,
      operations,
      databases: state.targets.map((t) => ({ dialect: t.dialect, cases })),
      mismatches: state.mismatches,
      failures,
      prism: prismFigure,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await stopRunning(running, options.prismLogFile);
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
