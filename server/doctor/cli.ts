/** The `npm run doctor` report: one block per check, or one JSON object per check. */
import type { CliIo } from '../audit/cli.js';
import type { Db } from '../db/types.js';
import { runDoctor } from './checks.js';

/** Prints every check's finding; exit code 1 when rows need repair, else 0. */
export async function doctorCli(
  db: Db,
  values: { limit: number; json: boolean },
  io: CliIo,
): Promise<number> {
  const findings = await runDoctor(db, { limit: values.limit });
  const needRepair = findings.filter((f) => f.kind === 'repair' && f.count > 0);
  for (const finding of findings) {
    if (values.json) {
      io.out(JSON.stringify(finding));
      continue;
    }
    const status = finding.count === 0 ? 'ok' : finding.kind === 'repair' ? 'REPAIR' : 'info';
    io.out(`${status.padEnd(6)} ${finding.check}: ${finding.count} ${finding.summary}`);
    if (finding.count === 0) continue;
    if (finding.repair !== '') io.out(`       repair: ${finding.repair}`);
    const more = finding.count - finding.ids.length;
    io.out(`       ids: ${finding.ids.join(', ')}${more > 0 ? ` (and ${more} more)` : ''}`);
  }
  if (!values.json) {
    io.out(
      needRepair.length === 0
        ? 'doctor: nothing to repair'
        : `doctor: ${needRepair.length} check(s) found rows to repair`,
    );
  }
  return needRepair.length === 0 ? 0 : 1;
}
