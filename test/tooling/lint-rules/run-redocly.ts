import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root: redocly.yaml there is the config every run uses. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** One problem as Redocly's `--format=json` reports it (the fields the tests read). */
export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { source: { ref: string }; pointer: string }[];
}

/** Result of one CLI run over several files. */
export interface LintRun {
  status: number | null;
  /**
   * Problems per linted file, keyed by the path given on the command line (including problems
   * found in files it `$ref`s). Empty when the CLI failed before linting (see stderr).
   */
  problemsByFile: Map<string, LintProblem[]>;
  stderr: string;
}

/**
 * Lints `files` (paths relative to the repository root) with the Redocly CLI the project
 * installs and `redocly.yaml`, in a single process: spawning the real CLI tests exactly what
 * `npm run lint:spec` runs, plugin loading included.
 */
export function lintFiles(files: readonly string[]): LintRun {
  const require = createRequire(import.meta.url);
  const cliPackage = require.resolve('@redocly/cli/package.json');
  const cli = path.join(path.dirname(cliPackage), 'bin', 'cli.js');
  const result = spawnSync(
    process.execPath,
    [
      cli,
      'lint',
      ...files,
      '--config=redocly.yaml',
      '--lint-config=error',
      '--format=json',
      '--max-problems=1000',
    ],
    {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  // Redocly lints the files in the order given and prints one report per file.
  const reports = parseJsonSequence(result.stdout) as { problems?: LintProblem[] }[];
  const problemsByFile = new Map<string, LintProblem[]>();
  if (reports.length === files.length) {
    files.forEach((file, index) => {
      problemsByFile.set(file, reports[index]?.problems ?? []);
    });
  }
  return { status: result.status, problemsByFile, stderr: result.stderr };
}

/**
 * Redocly prints one JSON document per linted file, back to back; splits and parses them.
 */
export function parseJsonSequence(text: string): unknown[] {
  const documents: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}') {
      depth--;
      if (depth === 0) documents.push(JSON.parse(text.slice(start, i + 1)));
    }
  }
  return documents;
}
