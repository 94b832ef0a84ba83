import type { Change, OpenApiDocument } from './types.js';

/** State shared by one `diffSpecs` run. */
export interface DiffContext {
  base: OpenApiDocument;
  head: OpenApiDocument;
  changes: Change[];
  /** Schema pairs already compared (`direction|basePtr|headPtr`): guards `$ref` cycles and
   * reports a shared component once, not once per operation using it. */
  visited: Set<string>;
  /** Operation being walked, for the change's context. */
  operation?: string;
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
  ctx.changes.push(change);
}
