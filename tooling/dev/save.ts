/**
 * One save of the spec, start to end: parse → bundle → route table → (the service builds it
 * while the lint and the OpenAPI 3.0 schema check run) → swap on a clean lint → the example
 * rules (`EXAMPLE_RULES`) beside the regeneration of `generated/` and the handler stubs,
 * writing only files whose text changed. A spec that does not parse, lint or generate
 * leaves the last good contract serving and is reported in the terminal and on `/docs`.
 */
import { relative } from 'node:path';
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import { diffContracts } from './contract-diff.js';
import type { FileWriter } from './file-writer.js';
import type { ContractPayload } from './messages.js';
import { displayPath, problemOf, type Reporter } from './report.js';
import type { ServiceProcess } from './service-process.js';
import { contractId, type Finding, SpecProblem, type Toolchain } from './toolchain.js';
import { versionLine, versionModulesStamp } from './version-report.js';

export interface SavePaths {
  root: string;
  specFile: string;
  /** Folder of the generated files. */
  outDir: string;
  /** Folder of the handler modules whose stubs are reconciled; null to leave handlers alone. */
  handlersDir: string | null;
  /** Written into the generated files' header. */
  remakeCommand: string;
}

export interface SaveResult {
  outcome: 'served' | 'unchanged' | 'refused';
  /** From the first file event to the service answering with the new contract (or refusal). */
  ms: number;
}

export class SaveRunner {
  private lastProblem = false;
  private firstServing: (() => void) | undefined;

  constructor(
    private readonly paths: SavePaths,
    private readonly toolchain: Toolchain,
    private readonly service: ServiceProcess,
    private readonly writer: FileWriter,
    private readonly reporter: Reporter,
  ) {}

  /** `recheck`: lint even if the contract is unchanged (the lint rules changed). */
  async run(at: number, recheck = false): Promise<SaveResult> {
    try {
      return await this.attempt(at, recheck);
    } catch (error) {
      const problem =
        error instanceof SpecProblem
          ? problemOf(error.message, error.findings)
          : { summary: 'the spec could not be served', lines: [messageOf(error)] };
      this.lastProblem = true;
      this.service.setProblem(problem);
      const ms = performance.now() - at;
      this.reporter.refused(problem, ms);
      return { outcome: 'refused', ms };
    }
  }

  /** The first save's `✓ serving …` line, printed only when the service did start. */
  announceServing(started: boolean): void {
    if (started) this.firstServing?.();
    this.firstServing = undefined;
  }

  private async attempt(at: number, recheck: boolean): Promise<SaveResult> {
    const phases = new Phases(at);
    const spec = await this.toolchain.parse(this.paths.specFile);
    phases.mark('parse');
    const document = await this.toolchain.bundle(spec);
    phases.mark('bundle');
    const before = this.service.current;
    const id = contractId({ document, versions: versionModulesStamp(this.paths.root) });
    if (before?.id === id && !this.lastProblem && !recheck) {
      const ms = performance.now() - at;
      this.reporter.saved(diffContracts(before, before), { stubs: [], files: 0, ms });
      return { outcome: 'unchanged', ms };
    }
    let contract: ContractPayload | undefined;
    let refusal: SpecProblem | undefined;
    try {
      const table = await this.toolchain.routeTable(document, spec);
      // routeTable refuses (assertOpenApi30) what is not an OpenAPI 3.0 document.
      contract = { id, ...table, document: document as OpenApiDocument };
    } catch (error) {
      if (!(error instanceof SpecProblem)) throw error;
      refusal = error; // reported after the lint, whose findings usually say more
    }
    // Built by the service while the lint runs here: on two cores the swap waits for whichever
    // of the two takes longer, not for both.
    phases.mark('routes');
    if (contract !== undefined && before?.id !== id) await this.service.candidate(contract);
    const findings = await this.toolchain.lint(spec, document, 'contract');
    phases.mark('lint');
    const errors = findings.filter((finding) => finding.severity === 'error');
    if (errors.length > 0) {
      if (contract !== undefined) this.service.discard(id);
      const summary = `${errors.length} lint error${errors.length === 1 ? '' : 's'}`;
      throw new SpecProblem(summary, [...errors, ...(refusal?.findings ?? [])]);
    }
    if (refusal !== undefined || contract === undefined) throw refusal;
    if (before?.id === id) this.service.setProblem(null);
    else await this.service.commit(contract);
    phases.mark('swap');
    this.lastProblem = false;
    const ms = performance.now() - at;

    const { root, outDir, handlersDir, remakeCommand } = this.paths;
    const regenerated = this.toolchain.regenerate(
      {
        document,
        outDir: relative(root, outDir),
        remakeCommand,
        handlersDir,
        // Our generated/: every older version's files too, from the modules as they are now.
        versions: relative(root, outDir) === 'generated',
      },
      spec,
    );
    // Beside the regeneration worker, so the line costs the save no time of its own.
    const versions = await versionLine(root, document).catch(
      (error: unknown) => `✗ versions: ${messageOf(error)}`,
    );
    // The examples are checked after the swap, beside the regeneration (EXAMPLE_RULES).
    const exampleFindings = await this.toolchain.lint(spec, document, 'examples');
    const { files, stubs } = await regenerated;
    const written = this.writer.writeChanged(files);
    phases.mark('regenerate');
    if (process.env.DEV_PHASES === '1') this.reporter.note(`  ${phases}`);
    if (before === null) {
      const schemas = (document.components as { schemas?: object } | undefined)?.schemas ?? {};
      // Said by the loop once the service listens (`announceServing`), never before.
      this.firstServing = () =>
        this.reporter.serving(contract.routes.length, Object.keys(schemas).length, {
          files: written.length,
          ms,
        });
    } else {
      const added = stubs.map((stub) => `${stub.operationId} in ${displayPath(root, stub.file)}`);
      this.reporter.saved(diffContracts(before, contract), {
        stubs: added,
        files: written.length,
        ms,
      });
    }
    if (versions !== undefined) this.reporter.note(`  ${versions}`);
    this.reporter.warnings(
      [...findings, ...exampleFindings].filter((finding) => finding.severity !== 'error'),
    );
    this.reportExamples(exampleFindings.filter((finding) => finding.severity === 'error'));
    return { outcome: 'served', ms };
  }

  /**
   * Example errors of a contract already served: shown in the terminal and on `/docs` until a
   * save fixes them (the next save lints again even if its contract is the same), and refused
   * by `npm run lint:spec` as ever.
   */
  private reportExamples(errors: readonly Finding[]): void {
    if (errors.length === 0) return;
    const summary = `${errors.length} example error${errors.length === 1 ? '' : 's'}`;
    const problem = problemOf(`${summary} (served: an example changes no behaviour)`, errors);
    this.lastProblem = true;
    this.service.setProblem(problem);
    this.reporter.exampleErrors(problem);
  }
}

/** Where a save's time goes (`DEV_PHASES=1` prints it): ms per step since the first event. */
class Phases {
  private last: number;
  private readonly steps: string[] = [];
  constructor(at: number) {
    this.last = at;
  }
  mark(name: string): void {
    const now = performance.now();
    this.steps.push(`${name} ${Math.round(now - this.last)}`);
    this.last = now;
  }
  toString(): string {
    return this.steps.join(' · ');
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
