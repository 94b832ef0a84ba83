/**
 * The fuzz figure as text: cases per operation, failures, and each failure with its curl.
 */
import type { FuzzFailure, FuzzReport } from './run.js';

/** The error message of a failure's answer, for grouping (the same bug answers alike). */
function answerMessage(response: string): string {
  try {
    const error = (JSON.parse(response) as { error?: { message?: string } }).error;
    return error?.message ?? '';
  } catch {
    return '';
  }
}

/** What makes failures "the same": operation, first problem (digits dropped), error message. */
function signature(f: FuzzFailure): string {
  const problem = (f.problems[0] ?? '').replace(/\d+/g, 'N');
  return `${f.operationId} [${f.database}]: ${problem} ${answerMessage(f.response)}`.trim();
}

/**
 * The report as lines of text: the figure, failures grouped by signature (counted), then each
 * failure with its curl command, at most `printLimit` of them (default: all).
 */
export function formatReport(report: FuzzReport, printLimit = Number.POSITIVE_INFINITY): string {
  const lines: string[] = [];
  const width = Math.max(...report.operations.map((o) => o.operationId.length), 9);
  lines.push(`Contract fuzz: seed ${report.seed}, ${report.runs} cases per operation`);
  // The slowest answer per operation: a case whose cost grows with the body shows here first.
  lines.push(`${'operation'.padEnd(width)}  cases  valid  invalid  failures  slowest ms  (case)`);
  for (const o of report.operations) {
    lines.push(
      `${o.operationId.padEnd(width)}  ${String(o.cases).padStart(5)}  ${String(o.valid).padStart(5)}  ${String(o.invalid).padStart(7)}  ${String(o.failures).padStart(8)}  ${o.slowestMs.toFixed(0).padStart(10)}  (${o.slowestWhy.slice(0, 60)})`,
    );
  }
  const cases = report.operations.reduce((n, o) => n + o.cases, 0);
  const failed = report.failures.length;
  lines.push(
    `Databases: ${report.databases.map((d) => `${d.dialect} ${d.cases} cases`).join(', ')}; ${report.mismatches} cases answered differently`,
  );
  if (report.prism !== null) {
    lines.push(
      `Prism proxy: ${report.prism.requests} requests checked; ${report.prism.unflaggedInvalid} broken requests it did not flag (info only)`,
    );
  } else lines.push('Prism: not run');
  const groups = new Map<string, number>();
  for (const f of report.failures) groups.set(signature(f), (groups.get(signature(f)) ?? 0) + 1);
  if (groups.size > 0) {
    lines.push('', `Failures by kind (${groups.size}):`);
    for (const [kind, count] of [...groups].sort((a, b) => b[1] - a[1])) {
      lines.push(`  ${String(count).padStart(4)} × ${kind}`);
    }
  }
  for (const f of report.failures.slice(0, printLimit)) {
    lines.push('');
    lines.push(
      `FAIL ${f.operationId} case #${f.index} on ${f.database} (${f.valid ? 'valid' : f.why}) → ${f.status}`,
    );
    for (const p of f.problems) lines.push(`  - ${p}`);
    lines.push(`  response: ${f.response.replace(/\s+/g, ' ').slice(0, 300)}`);
    lines.push(`  reproduce: ${f.curl}`);
  }
  if (failed > printLimit) lines.push(`… and ${failed - printLimit} more failures`);
  lines.push('');
  const answers = cases * report.databases.length;
  lines.push(
    `fuzz: ${answers - failed} of ${answers} answers passed (${cases} cases × ${report.databases.length} databases), ${failed} failed (${report.seconds.toFixed(1)} s)`,
  );
  return lines.join('\n');
}
