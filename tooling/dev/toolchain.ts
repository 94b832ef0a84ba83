/**
 * The dev loop's one adapter over the toolchain: Redocly (parse, lint with `redocly.yaml`,
 * bundle), the official OpenAPI 3.0 schema's validity check, the generators and the handler-stub reconciliation. Everything else in
 * `tooling/dev/` reads the spec through this file, so when the loader or the generators move,
 * only this file follows them.
 *
 * Kept warm for the whole session: the Redocly config (plugins included) is loaded once and
 * again only when `redocly.yaml` or a rule changes; the route table is light and is built
 * here; the full generation (openapi-typescript, TypeScript, ts-morph) stays loaded in a
 * worker thread (`regenerate.ts`).
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { Config, clearPluginsCache, lintDocument, loadConfig } from '@redocly/openapi-core';
import type { RouteDefinition } from '../../contract/route-types.js';
import { routeTableOf } from '../../generators/route-table.js';
import type { ComponentSchemas } from '../../server/http/validation.js';
import { DocumentError } from '../openapi/errors.js';
import {
  bundleFile,
  locateError,
  locateParseError,
  locateProblem,
  type ParsedFile,
  parseFile,
} from '../openapi/load.js';
import { validateDocument } from '../openapi/validate-document.js';
import { locateViolations } from '../openapi/validate-file.js';
import type { RegenerateRequest, RegenerateResult } from './regenerate.js';

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
export type ParsedSpec = ParsedFile;

/** What the running service needs for one version of the spec. */
export interface ContractTable {
  routes: readonly RouteDefinition[];
  componentSchemas: ComponentSchemas;
}

/**
 * Redocly's rules that check examples against their schemas. On our spec they are about 70% of
 * a warm lint (a warm save linted in 0.27–0.38 s without them against 1.0–1.6 s with them,
 * load ~2–8: each lint compiles an Ajv validator per example location afresh). An example
 * changes nothing the service accepts or answers, so the loop swaps on the rest of the lint
 * and checks the examples right after the swap (`lint(…, 'examples')`); `npm run lint:spec`,
 * `npm test` and `spec:check` run every rule at once, as before.
 */
export const EXAMPLE_RULES: readonly string[] = [
  'no-invalid-media-type-examples',
  'no-invalid-schema-examples',
  'no-invalid-parameter-examples',
];

/** Which part of the lint to run: all but the example rules (with the official schema check), or only them. */
export type LintPart = 'contract' | 'examples';

/** A problem that stops a spec from being served, with its findings. */
export class SpecProblem extends Error {
  constructor(
    message: string,
    readonly findings: Finding[],
  ) {
    super(message);
  }
}

export class Toolchain {
  private config: Config | undefined;
  /** `config` split by `LintPart` (made with it, dropped with it). */
  private parts: Record<LintPart, Config> | undefined;
  private worker: Worker | undefined;
  private readonly queue: ((result: RegenerateResult) => void)[] = [];

  constructor(
    /** The repository root: findings and generated paths are relative to it. */
    readonly root: string,
    /** `redocly.yaml` to lint with. */
    readonly configPath: string,
  ) {}

  /** Loads the lint config (again, after `redocly.yaml` or a plugin changed). */
  async reloadConfig(): Promise<Config> {
    if (this.config !== undefined) clearPluginsCache();
    this.config = await loadConfig({ configPath: this.configPath });
    this.parts = undefined;
    return this.config;
  }

  /** Parses the spec and the files it `$ref`s. Throws `SpecProblem` for unreadable YAML. */
  async parse(file: string): Promise<ParsedSpec> {
    try {
      return await parseFile(file, await this.lintConfig());
    } catch (error) {
      throw new SpecProblem('the spec does not parse', [this.parseFinding(error, file)]);
    }
  }

  /**
   * Lints with the project's rules and validates the bundled `document` against the official
   * OpenAPI 3.0 schema, as `npm run lint:spec` does (the schema alone: the lint's
   * `no-unresolved-refs` follows every `$ref`); every finding, errors first. `part`:
   * `contract` is every rule but `EXAMPLE_RULES`, plus the official schema check; `examples`
   * is those rules alone.
   */
  async lint(
    spec: ParsedSpec,
    document: Record<string, unknown>,
    part: LintPart,
  ): Promise<Finding[]> {
    const problems = await lintDocument({
      document: spec.root,
      config: (await this.lintParts())[part],
      externalRefResolver: spec.resolver,
    });
    const file = spec.root.source.absoluteRef;
    const violations =
      part === 'contract'
        ? locateViolations(
            await validateDocument(document, { refs: false }),
            spec.root,
            file,
            this.root,
          )
        : [];
    const located = [
      ...problems.map((problem) => locateProblem(problem, this.root)),
      ...violations,
    ];
    const findings = located.map((item) => ({
      severity: item.severity,
      where: item.where,
      pointer: item.pointer,
      message: item.message,
      ...(item.ruleId === undefined ? {} : { rule: item.ruleId }),
    }));
    return findings.sort((a, b) =>
      a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1,
    );
  }

  /**
   * The bundled document (every external `$ref` inlined), on a copy: the parsed tree stays as
   * it was for the lint, which reports locations in the files the author edits.
   */
  async bundle(spec: ParsedSpec): Promise<Record<string, unknown>> {
    const { bundled } = await bundleFile(spec, await this.lintConfig(), { copy: true });
    return bundled as Record<string, unknown>;
  }

  /**
   * The route table the service registers: the data `generated/routes.ts` prints
   * (`buildRouteTable`), so the service and the file can never disagree. Throws `SpecProblem`
   * for what the generator refuses.
   */
  async routeTable(document: Record<string, unknown>, spec: ParsedSpec): Promise<ContractTable> {
    try {
      return routeTableOf(document);
    } catch (error) {
      throw this.generatorProblem(error, spec);
    }
  }

  /**
   * Every generated file and handler module that should exist (absolute path → text), made in
   * the regeneration worker. Throws `SpecProblem` for what the generators refuse.
   */
  async regenerate(
    request: Omit<RegenerateRequest, 'root'>,
    spec: ParsedSpec,
  ): Promise<{ files: Map<string, string>; stubs: { operationId: string; file: string }[] }> {
    this.worker ??= this.startWorker();
    const worker = this.worker;
    const result = await new Promise<RegenerateResult>((resolveResult) => {
      this.queue.push(resolveResult);
      worker.postMessage({ ...request, root: this.root });
    });
    if (!result.ok) {
      throw this.generatorProblem(new DocumentError(result.pointer ?? '#', result.message), spec);
    }
    return { files: result.files, stubs: result.stubs };
  }

  /** Stops the regeneration worker. */
  async close(): Promise<void> {
    await this.worker?.terminate();
    this.worker = undefined;
  }

  private startWorker(): Worker {
    // TypeScript source: the worker registers tsx itself, as it does not always inherit the
    // loader (vitest runs the loop without `--import tsx`).
    const entry = JSON.stringify(new URL('./regenerate-worker.ts', import.meta.url).href);
    const worker = new Worker(
      `import('tsx/esm/api').then(({ register }) => { register(); return import(${entry}); });`,
      { eval: true },
    );
    worker.on('message', (result: RegenerateResult) => this.queue.shift()?.(result));
    worker.on('error', (error) => {
      for (const waiter of this.queue.splice(0)) {
        waiter({ ok: false, pointer: null, message: `regeneration failed: ${error.message}` });
      }
      this.worker = undefined;
    });
    worker.unref();
    return worker;
  }

  private async lintConfig(): Promise<Config> {
    return this.config ?? (await this.reloadConfig());
  }

  /** The lint config as two: without the example rules, and with only them. */
  private async lintParts(): Promise<Record<LintPart, Config>> {
    const config = await this.lintConfig();
    if (this.parts !== undefined) return this.parts;
    const examples = new Set(EXAMPLE_RULES);
    // Every rule the config names stays named, only its setting turns `off`.
    const keep = <T extends object>(rules: T | undefined, wanted: boolean): T =>
      Object.fromEntries(
        Object.entries(rules ?? {}).map(([id, setting]) => [
          id,
          examples.has(id) === wanted ? setting : 'off',
        ]),
      ) as T;
    const split = (wanted: boolean): Config => {
      const resolved = config.resolvedConfig;
      return new Config(
        {
          ...resolved,
          rules: keep(resolved.rules, wanted),
          oas3_0Rules: keep(resolved.oas3_0Rules, wanted),
        },
        {
          configPath: config.configPath,
          document: config.document,
          resolvedRefMap: config.resolvedRefMap,
          plugins: config.plugins,
          ignore: config.ignore,
        },
      );
    };
    this.parts = { contract: split(false), examples: split(true) };
    return this.parts;
  }

  private parseFinding(error: unknown, file: string): Finding {
    const { severity, where, pointer, message } = locateParseError(error, file, this.root);
    return { severity, where, pointer, message };
  }

  private generatorProblem(error: unknown, spec: ParsedSpec): Error {
    if (!(error instanceof DocumentError)) return error as Error;
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
}

/** A short content hash of a document: the contract's identity across saves and restarts. */
export function contractId(document: unknown): string {
  return createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 12);
}
