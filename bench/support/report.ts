/**
 * What every results file says besides its figures (docs/design.md#benchmarks): the machine,
 * the load averages next to the figures, and markdown tables; `writeResults` puts the file
 * under bench/results/ (or where `--out` says) and echoes it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';

/** The repository root. */
export const ROOT = join(import.meta.dirname, '..', '..');

/** `bench/results/NAME` in this checkout. */
export function resultsFile(name: string): string {
  return join(ROOT, 'bench', 'results', name);
}

/** The 1, 5 and 15-minute load averages, e.g. `1.52 / 1.40 / 1.33` (`separator` between). */
export function loadAverages(separator = ' / '): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(separator);
}

/** The 1-minute load average. */
export function oneMinuteLoad(): number {
  return loadavg()[0]!;
}

/** The CPU model, e.g. `AMD EPYC 7B13`. */
export function cpuModel(): string {
  return cpus()[0]?.model.trim() ?? 'unknown CPU';
}

/** `2 × AMD EPYC 7B13`: the cores and their model. */
export function machine(): string {
  return `${cpus().length} × ${cpuModel()}`;
}

/** The installed version of a dependency, from its package.json. */
export function packageVersion(name: string): string {
  const file = join(ROOT, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/**
 * A markdown table. `align` gives each column's `---` or `---:`; unset columns are left
 * aligned. Cells are written as they are (callers escape `|`).
 */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly (string | number)[])[],
  align: readonly ('left' | 'right')[] = [],
): string {
  const rule = headers.map((_, i) => (align[i] === 'right' ? '---:' : '---'));
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), `|${rule.join('|')}|`, ...rows.map(line)].join('\n');
}

/** Writes `text` to `file` (its folder made if missing) and prints it. */
export function writeResults(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  process.stdout.write(`\n${text}`);
}
