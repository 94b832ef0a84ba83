/**
 * One fuzz run: start the service (and Prism in front of it), build the set-up objects, then
 * for every operation of the route table sample `runs` cases from a fixed seed and send them
 * one at a time, checking each answer; finally read Prism's verdict per request.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { componentSchemas, routes } from '../../generated/routes.js';
import type { FuzzCase } from './case-types.js';
import { checkAnswer } from './checks.js';
import { curlCommand, send, type WireRequest, type WireResponse } from './http.js';
import { operationCases } from './operation-cases.js';
import { type Prism, type PrismRequest, startPrism } from './prism.js';
import { ResponseChecker } from './response-checker.js';
import { SchemaRegistry } from './schema-registry.js';
import { type Service, startService } from './service.js';
import { buildWorld, makeFresh } from './setup.js';
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
}

/** One failed case, with what reproduces it. */
export interface FuzzFailure {
  operationId: string;
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
}

/** What a run found. */
export interface FuzzReport {
  seed: number;
  runs: number;
  operations: OperationFigure[];
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

async function wire(c: FuzzCase, service: Service, world: World): Promise<WireRequest> {
  const id = c.fresh !== undefined ? await makeFresh(service, world, c.fresh) : unknownId('tok', 3);
  const path = c.path.replace(encodeURIComponent(FRESH), encodeURIComponent(id));
  const key = c.key === 'publishable' ? service.publishable : service.secret;
  let body: string | Buffer | undefined;
  if (c.body !== undefined) {
    body = 'json' in c.body ? JSON.stringify(substitute(c.body.json, id)) : c.body.raw;
  }
  return {
    method: c.method,
    url: c.query === '' ? path : `${path}?${c.query}`,
    headers: { Authorization: `Bearer ${key}`, ...c.headers },
    ...(body === undefined ? {} : { body }),
  };
}

/** Runs the fuzzer and returns its figures; never throws for a failing case. */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const registry = new SchemaRegistry(Object.values(componentSchemas));
  const checker = new ResponseChecker({ routes, componentSchemas });
  const service = await startService(options.root);
  let prism: Prism | undefined;
  const failureDir = mkdtempSync(join(tmpdir(), 'patient-care-fuzz-failures-'));
  const operations: OperationFigure[] = [];
  const sent: Sent[] = [];
  const throughPrism: Sent[] = [];
  try {
    if (options.prism) {
      prism = await startPrism(options.root, 'spec/openapi.yaml', service.baseUrl);
    }
    const world = await buildWorld(service);
    const selected = routes.filter(
      (r) => !options.only?.length || options.only.includes(r.operationId),
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
      };
      for (const [index, c] of cases.entries()) {
        const request = await wire(c, service, world);
        const viaPrism = prism !== undefined && !c.bypassPrism;
        const response = await send(viaPrism ? prism!.baseUrl : service.baseUrl, request).catch(
          (error: Error): WireResponse => ({
            // No answer at all (connection dropped, timeout): a failure of the case, not the run.
            status: 0,
            headers: {},
            text: '',
            body: undefined,
            parseError: `no answer: ${error.message}`,
          }),
        );
        const problems = checkAnswer(checker, c, request.url, response);
        const record: Sent = { c, index, request, response };
        if (problems.length > 0) {
          record.failure = {
            operationId: c.operationId,
            index,
            valid: c.valid,
            why: c.why,
            problems,
            status: response.status,
            curl: curlCommand(service.baseUrl, request, failureDir, `${c.operationId}-${index}`),
            response: response.text.slice(0, 600),
          };
        }
        sent.push(record);
        if (viaPrism) throughPrism.push(record);
        figure.cases++;
        if (c.valid) figure.valid++;
        else figure.invalid++;
        if (service.exited()) throw new Error(`the service exited:\n${service.output()}`);
      }
      operations.push(figure);
      log(`${route.operationId}: ${figure.cases} cases`);
    }
    let prismFigure: FuzzReport['prism'] = null;
    if (prism !== undefined) prismFigure = await prismVerdict(prism, throughPrism, service);
    for (const record of sent) {
      if (record.failure === undefined) continue;
      const figure = operations.find((o) => o.operationId === record.c.operationId)!;
      figure.failures++;
    }
    return {
      seed: options.seed,
      runs: options.runs,
      operations,
      failures: sent.flatMap((s) => (s.failure ? [s.failure] : [])),
      prism: prismFigure,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    if (prism !== undefined && options.prismLogFile)
      writeFileSync(options.prismLogFile, prism.log());
    await prism?.stop();
    await service.stop();
  }
}

/**
 * Whether Prism's logged path is the path of `url`. Prism logs the WHATWG-parsed pathname
 * (dot segments resolved: an id of `..` is logged as its parent), sometimes decoded.
 */
function samePath(logged: string, url: string): boolean {
  const path = url.split('?')[0]!;
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
    const violations = matched[i]!.violations;
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
