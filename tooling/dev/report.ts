/**
 * What the loop prints: one line per save, meant for a person, coloured on a terminal (Node's
 * `styleText` also honours NO_COLOR and FORCE_COLOR) and plain when piped.
 */
import { relative } from 'node:path';
import { styleText } from 'node:util';
import type { ContractChange } from './contract-diff.js';
import type { ProblemPayload } from './messages.js';
import type { Finding } from './toolchain.js';

type Style = Parameters<typeof styleText>[0];

export class Reporter {
  constructor(private readonly out: NodeJS.WriteStream | NodeJS.WritableStream = process.stdout) {}

  /** The first save: what is served. */
  serving(operations: number, schemas: number, details: { files: number; ms: number }): void {
    const parts = [this.style('green', `✓ serving ${plural(operations, 'operation')}`)];
    parts.push(plural(schemas, 'schema'));
    if (details.files > 0) parts.push(`${plural(details.files, 'file')} regenerated`);
    parts.push(this.style('dim', `${Math.round(details.ms)} ms`));
    this.line(parts.join(' · '));
  }

  /** `+ GET /v1/practitioners · 2 schemas changed · 1 stub added · 640 ms` */
  saved(change: ContractChange, details: { stubs: string[]; files: number; ms: number }): void {
    const parts: string[] = [];
    for (const operation of change.added) parts.push(this.style('green', `+ ${operation}`));
    for (const operation of change.removed) parts.push(this.style('red', `- ${operation}`));
    if (change.changedOperations > 0) {
      parts.push(
        this.style('yellow', `~ ${plural(change.changedOperations, 'operation')} changed`),
      );
    }
    if (change.changedSchemas > 0) parts.push(`${plural(change.changedSchemas, 'schema')} changed`);
    if (parts.length === 0) parts.push(this.style('green', '✓ no contract change'));
    for (const stub of details.stubs) parts.push(this.style('cyan', `stub added: ${stub}`));
    if (details.files > 0) parts.push(`${plural(details.files, 'file')} regenerated`);
    parts.push(this.style('dim', `${Math.round(details.ms)} ms`));
    this.line(parts.join(' · '));
  }

  /** `✗ 2 lint errors · still serving the last good contract · 420 ms`, then each finding. */
  refused(problem: ProblemPayload, ms: number): void {
    this.line(
      [
        this.style('red', `✗ ${problem.summary}`),
        'still serving the last good contract',
        this.style('dim', `${Math.round(ms)} ms`),
      ].join(' · '),
    );
    for (const line of problem.lines) this.line(`  ${line}`);
  }

  /** `✗ 1 example error (served: …)`, then each finding: examples checked after the swap. */
  exampleErrors(problem: ProblemPayload): void {
    this.line(this.style('red', `✗ ${problem.summary}`));
    for (const line of problem.lines) this.line(`  ${line}`);
  }

  /** Lint warnings of a spec that was served anyway. */
  warnings(findings: readonly Finding[]): void {
    for (const finding of findings) this.line(`  ${this.style('yellow', findingLine(finding))}`);
  }

  note(text: string): void {
    this.line(this.style('dim', text));
  }

  error(text: string): void {
    this.line(this.style('red', text));
  }

  private style(format: Style, text: string): string {
    return styleText(format, text, { stream: this.out as NodeJS.WriteStream });
  }

  private line(text: string): void {
    this.out.write(`${text}\n`);
  }
}

/** `spec/openapi.yaml:12:3  error  rule-id  message`, as `npm run lint:spec` names them. */
export function findingLine(finding: Finding): string {
  const severity = finding.severity === 'error' ? 'error' : 'warning';
  return [finding.where || '?', severity, finding.rule ?? '', finding.message]
    .filter((part) => part !== '')
    .join('  ');
}

/** The problem shown in the terminal and on `/docs` for findings that stop a save. */
export function problemOf(summary: string, findings: readonly Finding[]): ProblemPayload {
  return { summary, lines: findings.map(findingLine) };
}

/** `file` relative to `root` when inside it, else absolute. */
export function displayPath(root: string, file: string): string {
  const path = relative(root, file);
  return path === '' || path.startsWith('..') ? file : path;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
