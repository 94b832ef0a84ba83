/**
 * `npm run lint:spec`: the spec's two checks, side by side on the 2 cores. Redocly's lint with
 * the house rules (`redocly.yaml`; its own output, unchanged) in a child process, and validity
 * against the official OpenAPI 3.0 JSON Schema (tooling/openapi/validate-document.ts) here,
 * which Redocly does not check (`required: []` passed it). Exit 1 when either fails.
 *
 *   npm run lint:spec                   spec/openapi.yaml
 *   npm run lint:spec -- FILE           another document (the fixtures' tests, the spec gate)
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { relative, resolve } from 'node:path';
import { runCommand } from '../tooling/cli/command.js';
import { validateFile } from '../tooling/openapi/validate-file.js';

const SPEC = {
  name: 'npm run lint:spec --',
  prefix: 'lint:spec',
  summary:
    'Lints the spec with Redocly and the house rules (redocly.yaml) and validates it against the official OpenAPI 3.0 JSON Schema; every finding as file:line:col. Exit 1 when either finds an error.',
  positionals: '[FILE]',
  options: {},
} as const;

const REDOCLY = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

/** Redocly's CLI as `lint:spec` always ran it; resolves to its exit code. */
function redoclyLint(file: string): Promise<number> {
  const args = ['lint', file, '--format=stylish', '--max-problems=200', '--lint-config=error'];
  const child = spawn(process.execPath, [REDOCLY, ...args], { stdio: 'inherit' });
  return new Promise((done) => {
    child.on('close', (code) => done(code ?? 1));
    child.on('error', (error) => {
      console.error(`lint:spec: cannot run Redocly: ${error.message}`);
      done(1);
    });
  });
}

await runCommand(SPEC, async ({ positionals }) => {
  const cwd = process.cwd();
  const file = resolve(positionals[0] ?? 'spec/openapi.yaml');
  const shown = relative(cwd, file).startsWith('..') ? file : relative(cwd, file);
  const lint = redoclyLint(shown);
  const violations = await validateFile(file, cwd);
  const lintCode = await lint;
  for (const item of violations) {
    console.log(
      `${item.where}  error  ${item.ruleId ?? 'openapi'}  ${item.message}  ${item.pointer}`,
    );
  }
  console.log(
    violations.length === 0
      ? `${shown}: valid against the official OpenAPI 3.0 schema`
      : `${shown}: ${violations.length} error(s) against the official OpenAPI 3.0 schema`,
  );
  return lintCode === 0 && violations.length === 0 ? 0 : 1;
});
