import { type DiffContext, emit } from './context.js';
import { canonical, show } from './objects.js';
import type { Direction } from './types.js';

type Keywords = Record<string, unknown>;

/**
 * Every rule here asks one question: may the head reject something a client could send under
 * the base (request), or may the head send something a client was told could not occur
 * (response)? Narrowing breaks requests; widening breaks responses.
 */
function verdict(dir: Direction, narrowed: boolean, widened: boolean): boolean {
  return dir === 'request' ? narrowed : widened;
}

function typeSet(kw: Keywords): Set<string> | undefined {
  if (typeof kw.type === 'string') return new Set([kw.type]);
  if (Array.isArray(kw.type)) return new Set(kw.type.filter((t) => t !== 'null').map(String));
  return undefined;
}

/** True when every value of type set `inner` is also valid for `outer` (integer ⊂ number). */
function accepts(outer: Set<string> | undefined, inner: Set<string> | undefined): boolean {
  if (!outer) return true;
  if (!inner) return false;
  for (const t of inner)
    if (!outer.has(t) && !(t === 'integer' && outer.has('number'))) return false;
  return true;
}

/** `type` rule: a narrowed request type or a widened response type breaks clients. */
export function diffType(
  ctx: DiffContext,
  b: Keywords,
  h: Keywords,
  pointer: string,
  dir: Direction,
) {
  const bt = typeSet(b);
  const ht = typeSet(h);
  if (canonical(bt && [...bt].sort()) === canonical(ht && [...ht].sort())) return;
  const narrowed = !accepts(ht, bt);
  const widened = !accepts(bt, ht);
  const what = `type ${show(b.type ?? 'any')} → ${show(h.type ?? 'any')}`;
  const breaking = verdict(dir, narrowed, widened);
  const why =
    dir === 'request'
      ? breaking
        ? 'requests valid before are now rejected'
        : 'the API accepts more than before'
      : breaking
        ? 'clients may receive values of a type they do not expect'
        : 'the API sends a subset of what it sent before';
  emit(ctx, 'type-changed', pointer, breaking, `${dir} ${what}: ${why}`);
}

function isNullable(kw: Keywords): boolean {
  return kw.nullable === true || (Array.isArray(kw.type) && kw.type.includes('null'));
}

/**
 * `nullable` rule. Removing it from a response field is NOT breaking: a reader that handles
 * null keeps working when null stops arriving. Adding it to a response field is breaking.
 */
export function diffNullable(
  ctx: DiffContext,
  b: Keywords,
  h: Keywords,
  pointer: string,
  dir: Direction,
) {
  const bn = isNullable(b);
  const hn = isNullable(h);
  if (bn === hn) return;
  const breaking = verdict(dir, bn && !hn, !bn && hn);
  const message =
    dir === 'request'
      ? bn
        ? 'request field no longer accepts null: clients sending null are rejected'
        : 'request field now also accepts null'
      : bn
        ? 'response field is no longer null: readers that handle null are unaffected'
        : 'response field may now be null: clients that do not expect null break';
  emit(ctx, bn ? 'nullable-removed' : 'nullable-added', pointer, breaking, message);
}

function enumOf(kw: Keywords): unknown[] | undefined {
  if (Array.isArray(kw.enum)) return kw.enum;
  return kw.const === undefined ? undefined : [kw.const];
}

/**
 * `enum` rule. A value removed from a request enum breaks senders. A value ADDED to a response
 * enum is not breaking: like Stripe, the API tells clients to tolerate unknown enum values.
 * Dropping a response enum altogether turns a closed set into any value, which is breaking.
 */
export function diffEnum(
  ctx: DiffContext,
  b: Keywords,
  h: Keywords,
  pointer: string,
  dir: Direction,
) {
  const be = enumOf(b);
  const he = enumOf(h);
  if (!be && !he) return;
  if (be && !he) {
    const breaking = dir === 'response';
    emit(
      ctx,
      'enum-removed',
      pointer,
      breaking,
      breaking
        ? 'response enum dropped: clients may receive any value, not just the listed ones'
        : 'request enum dropped: any value is accepted now',
    );
    return;
  }
  if (!be && he) {
    const breaking = dir === 'request';
    emit(
      ctx,
      'enum-added',
      pointer,
      breaking,
      breaking
        ? `request now limited to ${show(he)}: other values sent before are rejected`
        : `response now limited to ${show(he)}`,
    );
    return;
  }
  const bSet = new Set((be ?? []).map((v) => canonical(v)));
  const hSet = new Set((he ?? []).map((v) => canonical(v)));
  const removed = (be ?? []).filter((v) => !hSet.has(canonical(v)));
  const added = (he ?? []).filter((v) => !bSet.has(canonical(v)));
  if (removed.length > 0) {
    const breaking = dir === 'request';
    emit(
      ctx,
      'enum-value-removed',
      pointer,
      breaking,
      breaking
        ? `request enum lost ${show(removed)}: clients sending it are rejected`
        : `response enum lost ${show(removed)}: the API no longer sends it`,
    );
  }
  if (added.length > 0) {
    emit(
      ctx,
      'enum-value-added',
      pointer,
      false,
      dir === 'request'
        ? `request enum gained ${show(added)}`
        : `response enum gained ${show(added)}: not breaking by policy, clients must tolerate unknown enum values`,
    );
  }
}

const LOWER = ['minimum', 'minLength', 'minItems', 'minProperties'];
const UPPER = ['maximum', 'maxLength', 'maxItems', 'maxProperties'];
/** Keywords compared only as "changed at all": any new value may reject or produce other values. */
const OPAQUE = ['pattern', 'format'];
export const CONSTRAINT_KEYWORDS = new Set([
  ...LOWER,
  ...UPPER,
  ...OPAQUE,
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'uniqueItems',
]);

function num(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

/** Range, length, count, pattern and format rules. */
export function diffConstraints(
  ctx: DiffContext,
  b: Keywords,
  h: Keywords,
  pointer: string,
  dir: Direction,
) {
  const report = (kw: string, narrowed: boolean, widened: boolean) => {
    const breaking = verdict(dir, narrowed, widened);
    const what = `${dir} \`${kw}\` ${show(b[kw])} → ${show(h[kw])}`;
    const why = breaking
      ? dir === 'request'
        ? 'requests valid before may now be rejected'
        : 'the API may now send values clients were told could not occur'
      : 'compatible for clients';
    const kind = OPAQUE.includes(kw) ? `${kw}-changed` : 'constraint-changed';
    emit(ctx, kind, pointer, breaking, `${what}: ${why}`);
  };
  const bound = (kw: string, lower: boolean) => {
    const bv = num(b[kw]);
    const hv = num(h[kw]);
    if (bv === hv) return;
    const narrowed = hv !== undefined && (bv === undefined || (lower ? hv > bv : hv < bv));
    report(kw, narrowed, !narrowed);
  };
  for (const kw of LOWER) bound(kw, true);
  for (const kw of UPPER) bound(kw, false);
  for (const kw of ['exclusiveMinimum', 'exclusiveMaximum']) {
    if (typeof b[kw] === 'number' || typeof h[kw] === 'number')
      bound(kw, kw === 'exclusiveMinimum');
    else if (Boolean(b[kw]) !== Boolean(h[kw])) report(kw, !b[kw], Boolean(b[kw]));
  }
  const bm = num(b.multipleOf);
  const hm = num(h.multipleOf);
  if (bm !== hm) {
    report(
      'multipleOf',
      hm !== undefined && (bm === undefined || bm % hm !== 0),
      bm !== undefined && (hm === undefined || hm % bm !== 0),
    );
  }
  if (Boolean(b.uniqueItems) !== Boolean(h.uniqueItems)) {
    report('uniqueItems', !b.uniqueItems, Boolean(b.uniqueItems));
  }
  for (const kw of OPAQUE) {
    if (b[kw] === h[kw]) continue;
    report(kw, h[kw] !== undefined, b[kw] !== undefined);
  }
}
