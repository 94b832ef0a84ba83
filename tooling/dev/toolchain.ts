/**
 * The dev loop's one adapter over the toolchain: Redocly (parse, lint with `redocly.yaml`,
 * bundle), the generators and the handler-stub reconciliation. Everything else in
 * `tooling/dev/` reads the spec through this file, so when the loader or the generators move,
 * only this file follows them.
 *
 * Kept warm for the whole session: the Redocly config (plugins included) is loaded once and
 * again only when `redocly.yaml` or a rule changes; the generators' heavy modules
 * (openapi-typescript, TypeScript) are loaded on the first save and stay resident.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import {
  BaseResolver,
  bundle,
  type Config,
  clearPluginsCache,
  type Document,
  lintDocument,
  loadConfig,
} from '@redocly/openapi-core';
import { transform } from 'esbuild';
import { assertOpenApi30 } from '../../generators/document.js';
import { GenerateError } from '../../generators/errors.js';
import type { StubOperation, StubReport } from '../../generators/handler-stubs.js';
import { hasExternalRefs, locateError, locateProblem } from '../../scripts/lib/generate-load.js';
import type { RouteDefinition } from '../../server/http/route-types.js';
import type { ComponentSchemas } from '../../server/http/validation.js';
import { displayPath } from './report.js';

/** One lint finding or load error, ready to print as `file:line:col`. */
export interface Finding {
  severity: 'error' | 'warn';
  /** `spec/openapi.yaml:12:3`, relative to the repository root when inside it. */
  where: string;
  pointer: string;
  message: string;
  rule?: string;
}

/** A parsed spec: the root document as Redocly holds it, and the resolver that read it. */
export interface ParsedSpec {
  root: Document;
  resolver: BaseResolver;
}

/** What the running service needs for one version of the spec. */
export interface ContractTable {
  routes: readonly RouteDefinition[];
  componentSchemas: ComponentSchemas;
}

/** A problem that stops a spec from being served, with its findings. */
export class SpecProblem extends Error {
  constructor(
    message: string,
    readonly findings: Finding[],
  ) {
    super(message);
  }
}

// Loaded on first use: the generators pull in TypeScript and openapi-typescript, and holding
// that heap while Redocly loads its config slows the config load (see scripts/generate.ts).
type Generators = typeof import('../../generators/index.js');
type Operations = typeof import('../../generators/operations.js');
type Routes = typeof import('../../generators/routes.js');
type Stubs = typeof import('../../generators/handler-stubs.js');

export class Toolchain {
  private config: Config | undefined;
  private modules: Promise<[Generators, Operations, Routes, Stubs]> | undefined;

  constructor(
    /** The repository root: findings and generated paths are relative to it. */
    readonly root: string,
    /** `redocly.yaml` to lint with. */
    readonly configPath: string,
  ) {}

  /** Loads the lint config (again, after `redocly.yaml` or a plugin changed). */
  async reloadConfig(): Promise<void> {
    if (this.config !== undefined) clearPluginsCache();
    this.config = await loadConfig({ configPath: this.configPath });
  }

  /** Loads the generators now, so the first save does not pay for it. */
  async warm(): Promise<void> {
    await this.generators();
  }

  /** Parses the spec and the files it `$ref`s. Throws `SpecProblem` for unreadable YAML. */
  async parse(file: string): Promise<ParsedSpec> {
    const config = await this.lintConfig();
    const resolver = new BaseResolver(config.resolve);
    try {
      const root = await resolver.resolveDocument(null, realpathSync(file), true);
      if (root instanceof Error) throw root;
      if (!('parsed' in root)) throw new Error(`cannot read ${file}`);
      return { root, resolver };
    } catch (error) {
      throw new SpecProblem('the spec does not parse', [this.parseFinding(error, file)]);
    }
  }

  /** Lints with the project's rules; every finding, errors first. */
  async lint(spec: ParsedSpec): Promise<Finding[]> {
    const problems = await lintDocument({
      document: spec.root,
      config: await this.lintConfig(),
      externalRefResolver: spec.resolver,
    });
    const findings = problems.map((problem) => {
      const located = locateProblem(problem, this.root);
      return {
        severity: located.severity,
        where: located.where,
        pointer: located.pointer,
        message: located.message,
        ...(located.ruleId === undefined ? {} : { rule: located.ruleId }),
      };
    });
    return findings.sort((a, b) =>
      a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1,
    );
  }

  /**
   * The bundled document (every external `$ref` inlined), on a copy: the parsed tree stays as
   * it was for the lint, which reports locations in the files the author edits.
   */
  async bundle(spec: ParsedSpec): Promise<Record<string, unknown>> {
    const parsed = spec.root.parsed as Record<string, unknown>;
    if (!hasExternalRefs(parsed)) return structuredClone(parsed);
    const doc = { source: spec.root.source, parsed: structuredClone(parsed) } as Document;
    const result = await bundle({
      config: await this.lintConfig(),
      doc,
      dereference: false,
      externalRefResolver: spec.resolver,
    });
    return result.bundle.parsed as Record<string, unknown>;
  }

  /**
   * The route table the service registers, made by the same generator as `generated/routes.ts`
   * and evaluated in memory (its imports are types only), so the service and the file can
   * never disagree. Throws `SpecProblem` for what the generator refuses.
   */
  async routeTable(document: Record<string, unknown>, spec: ParsedSpec): Promise<ContractTable> {
    const [, operations, routes] = await this.generators();
    let text: string;
    try {
      assertOpenApi30(document);
      text = routes.generateRoutes(document, operations.listOperations(document), {
        routeTypesImport: './route-types.js',
        typesImport: './types.js',
      });
    } catch (error) {
      throw this.generatorProblem(error, spec);
    }
    const { code } = await transform(text, { loader: 'ts', format: 'cjs', target: 'es2022' });
    const module = { exports: {} as Partial<ContractTable> };
    new Function('module', 'exports', code)(module, module.exports);
    const { routes: table, componentSchemas } = module.exports;
    if (table === undefined || componentSchemas === undefined) {
      throw new Error('the route generator no longer exports routes and componentSchemas');
    }
    return { routes: table, componentSchemas };
  }

  /**
   * Every generated file (repository-relative path → text), as `npm run generate` writes them,
   * and the operations the handler stubs are reconciled against.
   */
  async artifacts(
    document: Record<string, unknown>,
    spec: ParsedSpec,
    options: { outDir: string; remakeCommand: string },
  ): Promise<{ files: Map<string, string>; operations: StubOperation[] }> {
    const [generators] = await this.generators();
    try {
      const result = generators.generate(document, options);
      return { files: result.files, operations: result.operations };
    } catch (error) {
      throw this.generatorProblem(error, spec);
    }
  }

  /** New or changed handler modules (names within the folder) for `operations`. */
  async reconcileStubs(
    operations: readonly StubOperation[],
    existing: ReadonlyMap<string, string>,
  ): Promise<{ files: Map<string, string>; report: StubReport }> {
    const [, , , stubs] = await this.generators();
    return stubs.reconcileHandlers(operations, existing);
  }

  private async lintConfig(): Promise<Config> {
    if (this.config === undefined) await this.reloadConfig();
    return this.config!;
  }

  private generators(): Promise<[Generators, Operations, Routes, Stubs]> {
    this.modules ??= Promise.all([
      import('../../generators/index.js'),
      import('../../generators/operations.js'),
      import('../../generators/routes.js'),
      import('../../generators/handler-stubs.js'),
    ]);
    return this.modules;
  }

  private parseFinding(error: unknown, file: string): Finding {
    const shown = this.relative(file);
    const detail = error as {
      line?: number;
      col?: number;
      source?: { absoluteRef?: string };
      originalError?: { reason?: string };
      message?: string;
    };
    const where =
      detail.line === undefined
        ? shown
        : `${this.relative(detail.source?.absoluteRef ?? file)}:${detail.line}:${detail.col ?? 1}`;
    const message = detail.originalError?.reason ?? detail.message ?? String(error);
    return { severity: 'error', where, pointer: '#', message: message.split('\n')[0]! };
  }

  private generatorProblem(error: unknown, spec: ParsedSpec): Error {
    if (!(error instanceof GenerateError)) return error as Error;
    const file = spec.root.source.absoluteRef;
    const located = locateError(error, spec.root, file, this.root);
    return new SpecProblem('the generators refused the spec', [
      {
        severity: 'error',
        where: located.where,
        pointer: located.pointer,
        message: located.message,
        rule: 'generate',
      },
    ]);
  }

  private relative(file: string): string {
    return displayPath(this.root, file);
  }
}

/** A short content hash of a document: the contract's identity across saves and restarts. */
export function contractId(document: unknown): string {
  return createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 12);
}
