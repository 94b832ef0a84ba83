import type { Change, OpenApiDocument } from './types.js';

/** State shared by one `diffSpecs` run. */
export interface DiffContext {
  base: OpenApiDocument;
  head: OpenApiDocument;
  changes: Change[];
  /** Schema pairs already compared (`direction|basePtr|headPtr`): guards `$ref` cycles and
   * compares a shared component once, not once per operation using it. */
  visited: Set<string>;
  /** Operation being walked, for the change's context. */
  operation?: string;
  /** Schema pairs being compared, outermost first: where an emitted change sits. */
  stack: string[];
  /** Operations that reached each schema pair directly, in the order they were walked. */
  reachedBy: Map<string, Set<string>>;
  /** Schema pairs each pair was reached from (its enclosing pairs). */
  enclosing: Map<string, Set<string>>;
  /** The innermost schema pair of each change emitted inside a schema. */
  scopeOf: Map<Change, string>;
}

/** A fresh context for comparing `base` with `head`. */
export function newContext(base: OpenApiDocument, head: OpenApiDocument): DiffContext {
  return {
    base,
    head,
    changes: [],
    visited: new Set(),
    stack: [],
    reachedBy: new Map(),
    enclosing: new Map(),
    scopeOf: new Map(),
  };
}

/** Records a change. */
export function emit(
  ctx: DiffContext,
  kind: string,
  pointer: string,
  breaking: boolean,
  message: string,
): void {
  const change: Change = { kind, pointer, breaking, message };
  if (ctx.operation) change.operation = ctx.operation;
  const scope = ctx.stack.at(-1);
  if (scope !== undefined) ctx.scopeOf.set(change, scope);
  ctx.changes.push(change);
}

/**
 * Notes that the walk reached schema pair `key` (from the current operation and the enclosing
 * pair), whether or not it is compared again.
 */
export function noteReach(ctx: DiffContext, key: string): void {
  const add = (map: Map<string, Set<string>>, value: string) => {
    const set = map.get(key) ?? new Set<string>();
    map.set(key, set);
    set.add(value);
  };
  if (ctx.operation) add(ctx.reachedBy, ctx.operation);
  const outer = ctx.stack.at(-1);
  if (outer !== undefined && outer !== key) add(ctx.enclosing, outer);
}

/**
 * Every operation through which `change` is reached: the one it was found through, then every
 * other operation using the same shared component (directly or through enclosing schemas).
 */
export function operationsOf(ctx: DiffContext, change: Change): string[] {
  const ops = new Set<string>(change.operation ? [change.operation] : []);
  const scope = ctx.scopeOf.get(change);
  if (scope === undefined) return [...ops];
  const seen = new Set<string>();
  const pending = [scope];
  for (let key = pending.pop(); key !== undefined; key = pending.pop()) {
    if (seen.has(key)) continue;
    seen.add(key);
    for (const op of ctx.reachedBy.get(key) ?? []) ops.add(op);
    for (const outer of ctx.enclosing.get(key) ?? []) pending.push(outer);
  }
  return [...ops];
}
