/**
 * One save of the spec, start to end: parse → bundle → route table → (the service builds it
 * while the lint runs) → swap on a clean lint → regenerate `generated/` and reconcile handler
 * stubs, writing only files whose text changed. A spec that does not parse, lint or generate
 * leaves the last good contract serving and is reported in the terminal and on `/docs`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { diffContracts } from './contract-diff.js';
import type { FileWriter } from './file-writer.js';
import type { ContractPayload } from './messages.js';
import { displayPath, problemOf, type Reporter } from './report.js';
import type { ServiceProcess } from './service-process.js';
import { contractId, SpecProblem, type Toolchain } from './toolchain.js';

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

  private async attempt(at: number, recheck: boolean): Promise<SaveResult> {
    const spec = await this.toolchain.parse(this.paths.specFile);
    const document = await this.toolchain.bundle(spec);
    const before = this.service.current;
    const id = contractId(document);
    if (before?.id === id && !this.lastProblem && !recheck) {
      const ms = performance.now() - at;
      this.reporter.saved(diffContracts(before, before), { stubs: [], files: 0, ms });
      return { outcome: 'unchanged', ms };
    }
    let contract: ContractPayload | undefined;
    let refusal: SpecProblem | undefined;
    try {
      contract = { id, ...(await this.toolchain.routeTable(document, spec)), document };
    } catch (error) {
      if (!(error instanceof SpecProblem)) throw error;
      refusal = error; // reported after the lint, whose findings usually say more
    }
    // Built by the service while the lint runs here: on two cores the swap waits for whichever
    // of the two takes longer, not for both.
    if (contract !== undefined && before?.id !== id) this.service.candidate(contract);
    const findings = await this.toolchain.lint(spec);
    const errors = findings.filter((finding) => finding.severity === 'error');
    if (errors.length > 0) {
      if (contract !== undefined) this.service.discard(id);
      const summary = `${errors.length} lint error${errors.length === 1 ? '' : 's'}`;
      throw new SpecProblem(summary, [...errors, ...(refusal?.findings ?? [])]);
    }
    if (refusal !== undefined || contract === undefined) throw refusal;
    if (before?.id === id) this.service.setProblem(null);
    else await this.service.commit(contract);
    this.lastProblem = false;
    const ms = performance.now() - at;

    const { files, stubs } = await this.regenerate(document, spec);
    const written = this.writer.writeChanged(files);
    if (before === null) {
      const schemas = (document.components as { schemas?: object } | undefined)?.schemas ?? {};
      this.reporter.serving(contract.routes.length, Object.keys(schemas).length, {
        files: written.length,
        ms,
      });
    } else {
      this.reporter.saved(diffContracts(before, contract), { stubs, files: written.length, ms });
    }
    this.reporter.warnings(findings.filter((finding) => finding.severity !== 'error'));
    return { outcome: 'served', ms };
  }

  /** Every generated file and handler module that should exist, by absolute path. */
  private async regenerate(
    document: Record<string, unknown>,
    spec: Awaited<ReturnType<Toolchain['parse']>>,
  ): Promise<{ files: Map<string, string>; stubs: string[] }> {
    const { root, outDir, handlersDir, remakeCommand } = this.paths;
    const artifacts = await this.toolchain.artifacts(document, spec, {
      outDir: relative(root, outDir),
      remakeCommand,
    });
    const files = new Map<string, string>();
    for (const [path, text] of artifacts.files) files.set(resolve(root, path), text);
    const stubs: string[] = [];
    if (handlersDir !== null) {
      const existing = new Map<string, string>();
      if (existsSync(handlersDir)) {
        for (const name of readdirSync(handlersDir)) {
          if (name.endsWith('.ts'))
            existing.set(name, readFileSync(join(handlersDir, name), 'utf8'));
        }
      }
      const reconciled = await this.toolchain.reconcileStubs(artifacts.operations, existing);
      for (const [name, text] of reconciled.files) files.set(join(handlersDir, name), text);
      for (const { operationId, file } of reconciled.report.added) {
        stubs.push(`${operationId} in ${displayPath(root, join(handlersDir, file))}`);
      }
    }
    return { files, stubs };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
