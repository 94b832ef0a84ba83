/**
 * `npm run bench:generate`: time and peak RSS of a full generate (lint, bundle, types, client,
 * routes) on our spec and on each corpus document, side by side in one run with the
 * openapi-typescript CLI alone (types only) on the same document, and their ratio. Our spec runs
 * with an empty cache, cached, and after an edit (see `ourWays`). Whole processes, median of 3,
 * peak RSS from GNU time. Results go to `bench/results/generate.md`; nothing is asserted.
 *
 *   npm run bench:generate [-- --runs 3 --only stripe]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { integerOption, parseOrExit } from '../tooling/cli/command.js';
import { corpusDocuments } from '../tooling/corpus/corpus.js';
import { listOperation, replaceOnce, withSampleTag } from '../tooling/dev/sample-edit.js';
import { scratchRepository } from '../tooling/generate/scratch-repository.js';
import { checked } from './support/options.js';
import {
  cpuModel,
  loadAverages,
  packageVersion,
  ROOT,
  resultsFile,
  writeResults,
} from './support/report.js';
import { median } from './support/stats.js';

const OUT = join(ROOT, '.corpus-out', 'bench');
const TIME = '/usr/bin/time';
const REDOCLY_CLI = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

interface Sample {
  seconds: number;
  /** User + system CPU seconds: on a shared machine the steadier figure. */
  cpuSeconds: number;
  rssMb: number;
  /** Operations our generator reported (`N operation(s)`), when it printed them. */
  operations?: number;
}

interface Row {
  name: string;
  operations: number;
  ours: Sample;
  baseline: Sample;
  /** Our spec only: the house lint (`npm run lint:spec`'s command), which generate does not run. */
  lint?: Sample;
}

/** Runs a command under GNU time; returns wall seconds and peak RSS (MB). */
function measure(
  command: string[],
  label: string,
  cwd = ROOT,
  env: Record<string, string> = {},
): Sample {
  const result = spawnSync(TIME, ['-f', '%e %M %U %S', ...command], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) {
    throw new Error(`${label} failed (exit ${result.status}):\n${result.stderr.slice(-2000)}`);
  }
  const last = result.stderr.trim().split('\n').at(-1)!;
  const [seconds, kb, user, system] = last.split(' ').map(Number);
  const operations = /(\d+) operation\(s\)/.exec(result.stdout)?.[1];
  return {
    seconds: seconds!,
    cpuSeconds: user! + system!,
    rssMb: kb! / 1024,
    ...(operations ? { operations: Number(operations) } : {}),
  };
}

/** Each measure's median over the runs, on its own. */
function medianSample(samples: Sample[]): Sample {
  return {
    seconds: median(samples.map((s) => s.seconds)),
    cpuSeconds: median(samples.map((s) => s.cpuSeconds)),
    rssMb: median(samples.map((s) => s.rssMb)),
  };
}

/** Writes a copy of `file` with every path and operation twice; returns its path. */
function doubled(file: string): string {
  const document = parse(readFileSync(file, 'utf8'), { maxAliasCount: -1 }) as {
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  for (const [path, item] of Object.entries(document.paths)) {
    const copy = structuredClone(item);
    for (const operation of Object.values(copy)) {
      if (operation && typeof operation === 'object' && operation.operationId) {
        operation.operationId = `${operation.operationId}Copy`;
      }
    }
    document.paths[`/copy${path}`] = copy;
  }
  mkdirSync(OUT, { recursive: true });
  const target = join(OUT, 'stripe-doubled.json');
  writeFileSync(target, JSON.stringify(document));
  return target;
}

/**
 * Our spec three ways (tooling/generate/cache.ts): with an empty cache (`--check`: the whole
 * pipeline, nothing written); cached with nothing changed (`--check`); and the run an owner
 * makes after an edit, in a scratch copy of the repository whose cache holds the state before
 * the edit: each run adds a new list operation (its own path and operationId) to the spec and
 * writes generated/, the older version's files and the new handler stub. Only the spec changed,
 * so every spec-derived artifact is rebuilt; the cache cannot serve it.
 */
function ourWays(entry: string[]): { label: string; run: (run: number) => Sample }[] {
  const cold = join(OUT, 'cache-cold');
  const warm = join(OUT, 'cache-warm');
  const scratch = join(OUT, 'scratch');
  mkdirSync(scratch, { recursive: true });
  scratchRepository(ROOT, scratch);
  const spec = withSampleTag(readFileSync(join(ROOT, 'spec', 'openapi.yaml'), 'utf8'));
  const scratchCache = { PATIENT_CARE_CACHE_DIR: join(OUT, 'cache-scratch') };
  // The states before the first edit and before every run: cached once, as an owner's last run.
  writeFileSync(join(scratch, 'spec', 'openapi.yaml'), spec);
  measure(entry, 'generate (scratch, before the edits)', scratch, scratchCache);
  measure([...entry, '--check'], 'generate (priming the cache)', ROOT, {
    PATIENT_CARE_CACHE_DIR: warm,
  });
  return [
    {
      label: 'patient-care (ours), no cache',
      run: () => {
        rmSync(cold, { recursive: true, force: true });
        return measure([...entry, '--check'], 'generate (no cache)', ROOT, {
          PATIENT_CARE_CACHE_DIR: cold,
        });
      },
    },
    {
      label: 'patient-care (ours), cached, nothing changed',
      run: () =>
        measure([...entry, '--check'], 'generate (cached)', ROOT, { PATIENT_CARE_CACHE_DIR: warm }),
    },
    {
      label: 'patient-care (ours), after an edit (an operation added)',
      run: (run) => {
        // Back to the state before the edit (its handlers, generated files), then the edit.
        for (const folder of ['server/handlers', 'generated']) {
          rmSync(join(scratch, folder), { recursive: true, force: true });
          cpSync(join(ROOT, folder), join(scratch, folder), { recursive: true });
        }
        const edited = replaceOnce(
          spec,
          '  /v1/claims/{id}:\n',
          `${listOperation(`/v1/referrals-${run}`, `listReferrals${run}`)}  /v1/claims/{id}:\n`,
        );
        writeFileSync(join(scratch, 'spec', 'openapi.yaml'), edited);
        return measure(entry, 'generate (after an edit)', scratch, scratchCache);
      },
    },
  ];
}

async function main(): Promise<void> {
  const { values } = parseOrExit({
    name: 'npm run bench:generate --',
    prefix: 'bench:generate',
    summary:
      'Times npm run generate on our spec and the corpus documents against openapi-typescript; results to bench/results/generate.md.',
    options: {
      runs: {
        type: 'string',
        value: 'N',
        default: '3',
        description: 'Runs per document (median).',
      },
      only: {
        type: 'string',
        value: 'NAME',
        description: 'Only documents whose name contains NAME.',
      },
    },
  });
  const runs = checked('bench:generate', () => integerOption('runs', values.runs, { min: 1 }));
  const documents = [
    { name: 'patient-care (ours)', file: join(ROOT, 'spec', 'openapi.yaml'), ours: true },
    // Fetched from pinned npm packages into a cache on first use (tooling/corpus/).
    ...(await corpusDocuments()).map(({ name, file }) => ({ name, file, ours: false })),
  ].filter((doc) => !values.only || doc.name.includes(values.only));

  // Linearity: Stripe's document with every path twice (copies under `/copy`, operationIds
  // suffixed), so the same schemas serve twice the operations.
  const stripe = documents.find((doc) => doc.name.startsWith('stripe'));
  if (stripe && !values.only) {
    documents.push({
      name: 'stripe ×2 operations (synthetic)',
      file: doubled(stripe.file),
      ours: false,
    });
  }

  const node = process.execPath;
  const ots = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
  // Ours: the command `npm run generate` runs, without npm's own start-up.
  const entry = [node, '--import', './tooling/node/ts-resolve.mjs', 'scripts/generate.ts'];
  const rows: Row[] = [];
  for (const doc of documents) {
    const out = join(OUT, doc.name.replace(/[^a-z0-9]+/gi, '-'));
    const baselineCommand = [node, ots, doc.file, '-o', join(OUT, 'ots.ts'), '--silent'];
    const lintCommand = [node, REDOCLY_CLI, 'lint', doc.file, '--format=summary'];
    const baseline: Sample[] = [];
    const lint: Sample[] = [];
    // Each way of running ours: a label and one timed run (setup, if any, is not timed).
    const ways = doc.ours
      ? ourWays(entry)
      : [
          {
            label: doc.name,
            run: () =>
              measure([...entry, '--spec', doc.file, '--out', out], `generate ${doc.name}`),
          },
        ];
    const ours: Sample[][] = ways.map(() => []);
    // Interleaved, so a change in machine load hits every side alike.
    for (let run = 0; run < runs; run += 1) {
      for (const [index, way] of ways.entries()) ours[index]!.push(way.run(run));
      if (doc.ours) lint.push(measure(lintCommand, `lint ${doc.name}`));
      // Outside the repository: the CLI would otherwise pick up our redocly.yaml and its rules.
      baseline.push(measure(baselineCommand, `openapi-typescript ${doc.name}`, tmpdir()));
      process.stdout.write('.');
    }
    ways.forEach((way, index) => {
      const samples = ours[index]!;
      const row = {
        name: way.label,
        operations: samples.find((sample) => sample.operations)?.operations ?? 0,
        ours: medianSample(samples),
        baseline: medianSample(baseline),
        ...(lint.length > 0 && index === 0 ? { lint: medianSample(lint) } : {}),
      };
      rows.push(row);
      console.log(
        ` ${row.name}: ours ${row.ours.seconds.toFixed(2)} s / ${row.ours.rssMb.toFixed(0)} MB, openapi-typescript ${row.baseline.seconds.toFixed(2)} s / ${row.baseline.rssMb.toFixed(0)} MB → ${(row.ours.seconds / row.baseline.seconds).toFixed(2)}×`,
      );
    });
  }
  rmSync(OUT, { recursive: true, force: true });
  writeResults(resultsFile('generate.md'), report(rows, runs));
}

function report(rows: Row[], runs: number): string {
  const tsc = execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-v'],
    {
      encoding: 'utf8',
    },
  )
    .trim()
    .replace('Version', 'TypeScript');
  const lines = [
    '# Generate benchmark',
    '',
    'Made by `npm run bench:generate` (bench/generate.ts). Whole processes, median of ' +
      `${runs} interleaved runs (each measure on its own; the mean of the two middle runs for an even count); peak RSS from GNU time. "ours" is a full generate (parse, bundle, ` +
      "the check (validity against the official OpenAPI 3.0 schema, every `$ref` followed; another document also gets Redocly's `struct` findings as warnings), types, client, routes, run as `npm run generate` runs it with Node's type stripping; for our spec also the handler-stub reconciliation, run as " +
      '`--check` so nothing is written); "openapi-typescript" is its CLI alone (types only), run outside the repository so it lints with its own `minimal` rules rather than our redocly.yaml.',
    '',
    `Machine: ${cpus().length} × ${cpuModel()}, ${(totalmem() / 2 ** 30).toFixed(1)} GB RAM, 1/5/15-min load average at end ${loadAverages()} (the machine is shared).`,
    `Versions: Node ${process.version}, openapi-typescript ${packageVersion('openapi-typescript')}, @redocly/openapi-core ${packageVersion('@redocly/openapi-core')}, ${tsc}, tsx ${packageVersion('tsx')}.`,
    '',
    '| document | operations | ours: time | ours: CPU | ours: peak RSS | openapi-typescript: time | openapi-typescript: CPU | openapi-typescript: peak RSS | time ratio | CPU ratio | ours per 100 operations |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.name} | ${row.operations} | ${row.ours.seconds.toFixed(2)} s | ${row.ours.cpuSeconds.toFixed(2)} s | ${row.ours.rssMb.toFixed(0)} MB | ${row.baseline.seconds.toFixed(2)} s | ${row.baseline.cpuSeconds.toFixed(2)} s | ${row.baseline.rssMb.toFixed(0)} MB | ${(row.ours.seconds / row.baseline.seconds).toFixed(2)}× | ${(row.ours.cpuSeconds / row.baseline.cpuSeconds).toFixed(2)}× | ${((row.ours.seconds / Math.max(row.operations, 1)) * 100).toFixed(2)} s |`,
    );
  }
  for (const row of rows) {
    if (!row.lint) continue;
    lines.push(
      '',
      `The house lint of ${row.name} (\`redocly lint\` with redocly.yaml, what \`npm run lint:spec\`, \`npm test\`, \`npm run spec:check\` and \`npm run dev\` run; not part of generate): ${row.lint.seconds.toFixed(2)} s, CPU ${row.lint.cpuSeconds.toFixed(2)} s, peak ${row.lint.rssMb.toFixed(0)} MB.`,
    );
  }
  lines.push(
    '',
    'Our spec runs three ways (tooling/generate/cache.ts): "no cache" is the whole pipeline with an empty content cache; "cached, nothing changed" reuses the text of an earlier run and only compares it with the files; "after an edit" is the run an owner makes after adding an operation to the spec, in a scratch copy whose cache holds the state before the edit, writing every changed file and the new stub (the spec changed, so nothing spec-derived is reused from the cache).',
    '',
    'Targets (issue 44): `npm run generate` after an edit ≤ 1.0× openapi-typescript alone on our spec (time ratio column); ' +
      'earlier rounds: full generate ≤ 1.2× openapi-typescript on each corpus document; GitHub peak < 600 MB; our spec < 2 s end to end; linear in operations.',
    '',
  );
  return lines.join('\n');
}

await main();
