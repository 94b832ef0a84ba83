/**
 * `npm run bench:dev`: how long a save of the spec takes to reach the running service under
 * `npm run dev`. Starts `npm run dev` on a copy of the spec (the repository's spec, generated/
 * and server/handlers/ are never touched), applies scripted edits to the copy, and times each
 * from the file write to the moment the service reflects it: `/openapi.json` and request
 * validation for good edits, the problem announced to the docs pages (and the last good
 * contract still served) for a broken spec. Writes p50/p95 to `bench/results/dev.md`, with the
 * cold `npm run generate` beside them. Nothing is asserted.
 *
 *   npm run bench:dev [-- --edits 20]
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { integerOption, parseOrExit } from '../tooling/cli/command.js';
import { listOperation, replaceOnce, withSampleTag } from '../tooling/dev/sample-edit.js';
import { freePort } from '../tooling/node/ports.js';
import { checked } from './support/options.js';
import { cpuModel, oneMinuteLoad, ROOT, resultsFile } from './support/report.js';
import { median, percentile } from './support/stats.js';

const RESULTS = resultsFile('dev.md');
const PROBE_EVERY_MS = 10;
const EDIT_TIMEOUT_MS = 60_000;
/** Pause after each save has finished (regenerated files included), as between human saves. */
const PAUSE_MS = 300;

const SPEC = {
  name: 'npm run bench:dev --',
  prefix: 'bench:dev',
  summary:
    'Times spec saves under npm run dev (on a copy of the spec) until the service reflects them; writes bench/results/dev.md. Kinds of edit cycle: add a property, add an operation, break the spec, fix it, change an enum.',
  options: {
    edits: { type: 'string', value: 'N', default: '20', description: 'How many saves to time.' },
  },
} as const;
const parsed = parseOrExit(SPEC);
const edits = checked('bench:dev', () =>
  integerOption('edits', parsed.values.edits, { min: 1, max: 1000 }),
);

interface LiveState {
  contract: string | null;
  problem: { summary: string } | null;
}

interface Edit {
  kind: string;
  apply(spec: string): string;
  /** True once the service reflects the edit. */
  reflected(): Promise<boolean>;
}

interface Timing {
  kind: string;
  ms: number;
  /** What the loop printed for the save. */
  line: string;
}

function fail(message: string, code = 1): never {
  process.stderr.write(`bench:dev: ${message}\n`);
  process.exit(code);
}

async function waitFor(what: string, probe: () => Promise<boolean> | boolean, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await Promise.resolve(probe()).catch(() => false)) return;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((wait) => setTimeout(wait, PROBE_EVERY_MS));
  }
}

/**
 * The cold `npm run generate` (lint, bundle, types, client, routes; `--check` writes nothing),
 * with an empty content cache (tooling/generate/cache.ts), so it is the whole pipeline.
 */
function coldGenerate(): number {
  const cache = mkdtempSync(join(tmpdir(), 'bench-dev-cache-'));
  const started = performance.now();
  const result = spawnSync('npm', ['run', 'generate', '--', '--check'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, PATIENT_CARE_CACHE_DIR: cache },
  });
  const ms = performance.now() - started;
  rmSync(cache, { recursive: true, force: true });
  if (result.status !== 0)
    fail(`npm run generate -- --check failed:\n${result.stdout}${result.stderr}`);
  return ms;
}

/**
 * openapi-typescript's CLI alone on our spec (types only), whole process, the yardstick of the
 * issue's target: save → served p50 ≤ 0.4× this. Run outside the repository so it lints with
 * its own rules, not our redocly.yaml.
 */
function openapiTypescriptMs(): number {
  const out = mkdtempSync(join(tmpdir(), 'bench-dev-ots-'));
  const cli = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [cli, join(ROOT, 'spec', 'openapi.yaml'), '-o', join(out, 'types.ts'), '--silent'],
    { cwd: out, encoding: 'utf8' },
  );
  const ms = performance.now() - started;
  rmSync(out, { recursive: true, force: true });
  if (result.status !== 0) fail(`openapi-typescript failed:\n${result.stderr}`);
  return ms;
}

async function main(): Promise<void> {
  const loadBefore = oneMinuteLoad();
  process.stdout.write('bench:dev: cold npm run generate …\n');
  const generateMs = coldGenerate();
  // Three runs before the edits and two after: the same machine, the same hour.
  const otsMs = [openapiTypescriptMs(), openapiTypescriptMs(), openapiTypescriptMs()];

  const dir = mkdtempSync(join(tmpdir(), 'bench-dev-'));
  const specFile = join(dir, 'spec/openapi.yaml');
  // The operations the edits add carry the sample's tag; the copy declares it and groups it
  // (patient-care/tags-in-groups: Redoc shows only grouped tags).
  mkdirSync(join(dir, 'spec'));
  writeFileSync(specFile, withSampleTag(readFileSync(join(ROOT, 'spec/openapi.yaml'), 'utf8')));
  cpSync(join(ROOT, 'spec/guides'), join(dir, 'spec/guides'), { recursive: true });
  cpSync(join(ROOT, 'server/handlers'), join(dir, 'handlers'), { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;

  const lines: string[] = [];
  const saves: string[] = [];
  const dev: ChildProcess = spawn(
    'npm',
    [
      'run',
      'dev',
      '--',
      '--spec',
      specFile,
      '--out',
      join(dir, 'generated'),
      '--handlers',
      join(dir, 'handlers'),
    ],
    {
      cwd: ROOT,
      detached: true, // its own process group, so the whole tree is stopped at the end
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${join(dir, 'service.db')}`,
        LOG_LEVEL: 'warn',
        WORKER: 'off',
        NO_COLOR: '1',
      },
    },
  );
  let buffered = '';
  dev.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      // One line per save, ending in its time; the tmp folder's name is noise in the results.
      if (/ · \d+ ms$/.test(line)) saves.push(line.replaceAll(dir, '<copy>'));
      if (/^ {2}parse \d+/.test(line)) process.stdout.write(`     ${line.trim()}\n`);
    }
  });
  const stop = () => {
    try {
      if (dev.pid !== undefined) process.kill(-dev.pid, 'SIGINT');
    } catch {
      // already gone
    }
  };
  process.once('exit', stop);

  try {
    await waitFor(
      'npm run dev to serve',
      // The service prints its banner (and the first key) just after it listens.
      async () =>
        saves.length > 0 &&
        lines.some((line) => line.includes('  Docs:')) &&
        (await fetch(`${base}/openapi.json`)).ok,
      180_000,
    );
    const key = lines.join('\n').match(/sk_test_[A-Za-z0-9]+/)?.[0];
    if (key === undefined) throw new Error('npm run dev did not print the first test key');
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${base}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      });
    const served = async () => (await fetch(`${base}/openapi.json`)).text();

    // The docs pages' event stream, read for the whole run: the problem banner's state.
    let live: LiveState = { contract: null, problem: null };
    const events = await fetch(`${base}/docs/dev/events`);
    const reader = events.body!.getReader();
    void (async () => {
      let text = '';
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        text += new TextDecoder().decode(value);
        for (const match of text.matchAll(/event: state\ndata: (.*)\n\n/g))
          live = JSON.parse(match[1]!);
        text = text.slice(text.lastIndexOf('\n\n') + 2);
      }
    })();

    const plan = editPlan(api, served, () => live);
    const timings: Timing[] = [];
    let spec = readFileSync(specFile, 'utf8');
    for (let i = 0; i < edits; i++) {
      const edit = plan(i);
      spec = edit.apply(spec);
      const savesBefore = saves.length;
      const started = performance.now();
      writeFileSync(specFile, spec);
      await waitFor(`edit ${i + 1} (${edit.kind})`, edit.reflected, EDIT_TIMEOUT_MS);
      const ms = performance.now() - started;
      await waitFor(
        `the loop to finish save ${i + 1}`,
        () => saves.length > savesBefore,
        EDIT_TIMEOUT_MS,
      );
      timings.push({ kind: edit.kind, ms, line: saves.at(-1)! });
      process.stdout.write(
        `  ${String(i + 1).padStart(2)} ${edit.kind.padEnd(16)} ${Math.round(ms)} ms\n`,
      );
      await new Promise((wait) => setTimeout(wait, PAUSE_MS));
    }
    await reader.cancel().catch(() => {});
    otsMs.push(openapiTypescriptMs(), openapiTypescriptMs());
    writeResults(timings, generateMs, median(otsMs), loadBefore, oneMinuteLoad());
  } finally {
    stop();
    await new Promise((done) => setTimeout(done, 1500));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Edit i of the run: five kinds in turn, each round adding names of its own. */
function editPlan(
  api: (path: string, init?: RequestInit) => Promise<Response>,
  served: () => Promise<string>,
  live: () => LiveState,
): (i: number) => Edit {
  return (i) => {
    const round = Math.floor(i / 5) + 1;
    const property = `nickname_${round}`;
    const path = `/v1/referrals_${round}`;
    const operationId = `listReferrals${round}`;
    const status = `tentative_${round}`;
    const kinds: Edit[] = [
      {
        kind: 'add a property',
        apply: (spec) => {
          // At the top of WebhookCreateParams' properties (closed: additionalProperties false).
          const properties = spec.indexOf(
            '      properties:\n',
            spec.indexOf('    WebhookCreateParams:\n'),
          );
          if (properties < 0) throw new Error('bench edit: WebhookCreateParams not found');
          const at = properties + '      properties:\n'.length;
          return `${spec.slice(0, at)}        ${property}:\n          type: string\n          maxLength: 40\n${spec.slice(at)}`;
        },
        reflected: async () => {
          const body = {
            url: 'https://clinic.example/hooks',
            enabled_events: ['*'],
            [property]: 5,
          };
          const response = await api('/v1/webhooks', {
            method: 'POST',
            body: JSON.stringify(body),
          });
          const error = ((await response.json()) as { error?: { code?: string; param?: string } })
            .error;
          return (
            error?.code === 'parameter_invalid' &&
            error.param === property &&
            (await served()).includes(`"${property}"`)
          );
        },
      },
      {
        kind: 'add an operation',
        apply: (spec) =>
          replaceOnce(
            spec,
            '  /v1/claims/{id}:\n',
            `${listOperation(path, operationId)}  /v1/claims/{id}:\n`,
          ),
        reflected: async () =>
          (await api(path)).status === 501 && (await served()).includes(`"${path}"`),
      },
      {
        kind: 'break the spec',
        apply: (spec) =>
          replaceOnce(spec, `operationId: ${operationId}\n`, 'operationId: listPatients\n'),
        reflected: async () =>
          live().problem !== null && (await served()).includes(`"${operationId}"`),
      },
      {
        kind: 'fix it',
        apply: (spec) =>
          replaceOnce(
            spec,
            `${path}:\n    get:\n      operationId: listPatients\n`,
            `${path}:\n    get:\n      operationId: ${operationId}\n`,
          ),
        reflected: async () => live().problem === null && (await api(path)).status === 501,
      },
      {
        kind: 'change an enum',
        apply: (spec) =>
          // From the line start: the FHIR search parameters' enums list `proposed` deeper.
          replaceOnce(
            spec,
            '\n        - proposed\n',
            `\n        - proposed\n        - ${status}\n`,
          ),
        reflected: async () =>
          (await api(`/v1/appointments?status=${status}`)).status === 200 &&
          (await served()).includes(`"${status}"`),
      },
    ];
    return kinds[i % kinds.length]!;
  };
}

function writeResults(
  timings: Timing[],
  generateMs: number,
  otsMs: number,
  loadBefore: number,
  loadAfter: number,
) {
  const all = timings.map((timing) => timing.ms);
  const p50 = percentile(all, 50);
  const p95 = percentile(all, 95);
  const kinds = [...new Set(timings.map((timing) => timing.kind))];
  const text = `# npm run dev: save → served (\`npm run bench:dev\`)

${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · Node ${process.version} · ${cpus().length} cores (${cpuModel()}) · load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after

From the write of the spec copy to the service reflecting it: \`/openapi.json\` and request
validation for good edits (probed every ${PROBE_EVERY_MS} ms), the problem on the docs event stream with
the last good contract still served for a broken spec. ${timings.length} edits, ${PAUSE_MS} ms apart after each save finished;
p50 and p95 are nearest-rank percentiles of their times, the figures by kind medians.

| | p50 | p95 | target |
|---|---|---|---|
| save → served | **${Math.round(p50)} ms** | **${Math.round(p95)} ms** | p50 ≤ 0.4× openapi-typescript (issue 44); earlier p50 ≤ 1,000 ms, p95 ≤ 2,000 ms |
| save → served ÷ openapi-typescript | **${(p50 / otsMs).toFixed(2)}×** | ${(p95 / otsMs).toFixed(2)}× | p50 ≤ 0.40× |
| openapi-typescript alone on our spec (CLI, whole process, median of 5 in this run) | ${Math.round(otsMs)} ms | | |
| cold \`npm run generate\` (\`-- --check\`, empty cache, whole process) | ${Math.round(generateMs)} ms | | |

By kind (median): ${kinds
    .map(
      (kind) =>
        `${kind} ${Math.round(median(timings.filter((t) => t.kind === kind).map((t) => t.ms)))} ms`,
    )
    .join(' · ')}

| # | edit | ms | what \`npm run dev\` printed |
|---|---|---|---|
${timings.map((timing, i) => `| ${i + 1} | ${timing.kind} | ${Math.round(timing.ms)} | \`${timing.line.replaceAll('|', '\\|')}\` |`).join('\n')}
`;
  writeFileSync(RESULTS, text);
  process.stdout.write(
    `save → served: p50 ${Math.round(p50)} ms (${(p50 / otsMs).toFixed(2)}× openapi-typescript's ${Math.round(otsMs)} ms), p95 ${Math.round(p95)} ms; cold generate ${Math.round(generateMs)} ms → ${RESULTS}\n`,
  );
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
