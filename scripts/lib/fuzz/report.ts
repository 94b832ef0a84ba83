/**
 * The fuzz figure as text: cases per operation, failures, and each failure with its curl.
 */
import type { FuzzReport } from './run.js';

/** Failures printed in full; the rest are counted (they are usually one bug many times). */
const PRINTED = 40;

/** The report as lines of text. */
export function formatReport(report: FuzzReport): string {
  const lines: string[] = [];
  const width = Math.max(...report.operations.map((o) => o.operationId.length), 9);
  lines.push(`Contract fuzz: seed ${report.seed}, ${report.runs} cases per operation`);
  lines.push(`${'operation'.padEnd(width)}  cases  valid  invalid  failures`);
  for (const o of report.operations) {
    lines.push(
      `${o.operationId.padEnd(width)}  ${String(o.cases).padStart(5)}  ${String(o.valid).padStart(5)}  ${String(o.invalid).padStart(7)}  ${String(o.failures).padStart(8)}`,
    );
  }
  const cases = report.operations.reduce((n, o) => n + o.cases, 0);
  const failed = report.failures.length;
  if (report.prism !== null) {
    lines.push(
      `Prism 5.14 proxy: ${report.prism.requests} requests checked; ${report.prism.unflaggedInvalid} broken requests it did not flag (info only)`,
    );
  } else lines.push('Prism: not run');
  for (const f of report.failures.slice(0, PRINTED)) {
    lines.push('');
    lines.push(
      `FAIL ${f.operationId} case #${f.index} (${f.valid ? 'valid' : f.why}) → ${f.status}`,
    );
    for (const p of f.problems) lines.push(`  - ${p}`);
    lines.push(`  response: ${f.response.replace(/\s+/g, ' ').slice(0, 300)}`);
    lines.push(`  reproduce: ${f.curl}`);
  }
  if (failed > PRINTED) lines.push(`… and ${failed - PRINTED} more failures`);
  lines.push('');
  lines.push(`fuzz: ${cases - failed} passed, ${failed} failed (${report.seconds.toFixed(1)} s)`);
  return lines.join('\n');
}
