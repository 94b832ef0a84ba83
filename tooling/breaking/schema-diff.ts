import { appendPointer } from '../../contract/pointer.js';
import { isObject, locate } from '../openapi/document.js';
import { type FlatSchema, flattenSchema } from '../openapi/flatten-schema.js';
import { type DiffContext, emit, noteReach } from './context.js';
import { diffOtherKeywords } from './keyword-rules.js';
import { asObject } from './objects.js';
import { refName } from './refs.js';
import { diffConstraints, diffEnum, diffNullable, diffType } from './scalar-rules.js';
import type { Direction, NodeAt } from './types.js';

/**
 * Compares two schemas (OpenAPI 3.0 §4.7.24) as seen from one direction, after resolving
 * `$ref` and merging `allOf`. Each resolved pair is compared once per direction, which both
 * stops `$ref` cycles and reports a shared component once; every operation reaching it is
 * remembered, so the report can name them all.
 */
export function diffSchema(ctx: DiffContext, b: NodeAt, h: NodeAt, dir: Direction): void {
  const bf = flattenSchema(ctx.base, b);
  const hf = flattenSchema(ctx.head, h);
  const key = `${dir}|${bf.pointer}|${hf.pointer}`;
  noteReach(ctx, key);
  if (ctx.visited.has(key)) return;
  ctx.visited.add(key);
  ctx.stack.push(key);
  try {
    compareFlat(ctx, bf, hf, dir);
  } finally {
    ctx.stack.pop();
  }
}

function compareFlat(ctx: DiffContext, bf: FlatSchema, hf: FlatSchema, dir: Direction): void {
  const bk = bf.keywords;
  const hk = hf.keywords;
  diffType(ctx, bk, hk, hf.pointer, dir);
  diffNullable(ctx, bk, hk, hf.pointer, dir);
  diffEnum(ctx, bk, hk, hf.pointer, dir);
  diffConstraints(ctx, bk, hk, hf.pointer, dir);
  diffProperties(ctx, bf, hf, dir);
  if (bk.items !== undefined || hk.items !== undefined) {
    diffSchema(
      ctx,
      { node: bk.items, pointer: appendPointer(bf.pointer, 'items') },
      { node: hk.items, pointer: appendPointer(hf.pointer, 'items') },
      dir,
    );
  }
  diffAdditionalProperties(ctx, bf, hf, dir);
  diffVariants(ctx, bf, hf, dir);
  diffOtherKeywords(ctx, bk, hk, hf.pointer, dir);
}

/** Properties a client deals with in this direction: readOnly ones are never sent, writeOnly
 * ones never received (OpenAPI 3.0 Schema Object `readOnly`/`writeOnly`). */
function visible(ctx: DiffContext, flat: FlatSchema, dir: Direction, isBase: boolean) {
  const doc = isBase ? ctx.base : ctx.head;
  const out = new Map<string, NodeAt>();
  for (const [name, loc] of flat.properties) {
    const raw = asObject(loc.node);
    const schema = asObject(locate(doc, loc).node);
    const hidden = dir === 'request' ? 'readOnly' : 'writeOnly';
    if (raw[hidden] === true || schema[hidden] === true) continue;
    out.set(name, loc);
  }
  return out;
}

/**
 * Property rules. A removed RESPONSE property breaks readers. A removed REQUEST property breaks
 * senders unless the head schema says `additionalProperties: true`: our server rejects unknown
 * body fields with 400 `parameter_unknown`, so a dropped field fails every client still sending
 * it. With an explicit `true` the field is silently ignored: reported, not breaking.
 */
function diffProperties(ctx: DiffContext, bf: FlatSchema, hf: FlatSchema, dir: Direction) {
  const bp = visible(ctx, bf, dir, true);
  const hp = visible(ctx, hf, dir, false);
  for (const [name, loc] of bp) {
    if (hp.has(name)) continue;
    if (dir === 'response') {
      emit(
        ctx,
        'property-removed',
        loc.pointer,
        true,
        `response property \`${name}\` removed or renamed: clients reading it break`,
      );
    } else {
      const tolerant = hf.keywords.additionalProperties === true;
      emit(
        ctx,
        'property-removed',
        loc.pointer,
        !tolerant,
        tolerant
          ? `request property \`${name}\` removed: unknown properties are still accepted, so senders are not rejected (the value is ignored)`
          : `request property \`${name}\` removed or renamed: clients still sending it are rejected as unknown`,
      );
    }
  }
  for (const [name, loc] of hp) {
    const required = hf.required.has(name);
    if (!bp.has(name)) {
      const breaking = dir === 'request' && required;
      emit(
        ctx,
        breaking ? 'property-added-required' : 'property-added',
        loc.pointer,
        breaking,
        breaking
          ? `new required request property \`${name}\`: requests without it are rejected`
          : `new optional ${dir} property \`${name}\``,
      );
      continue;
    }
    const wasRequired = bf.required.has(name);
    if (wasRequired !== required) {
      const breaking = dir === 'request' ? required : !required;
      const message = required
        ? dir === 'request'
          ? `request property \`${name}\` became required: requests without it are rejected`
          : `response property \`${name}\` is now always present`
        : dir === 'request'
          ? `request property \`${name}\` became optional`
          : `response property \`${name}\` may now be absent: clients expecting it break`;
      emit(
        ctx,
        required ? 'property-required' : 'property-optional',
        loc.pointer,
        breaking,
        message,
      );
    }
    const before = bp.get(name);
    if (before !== undefined) diffSchema(ctx, before, loc, dir);
  }
}

/** `additionalProperties` rules: maps (like `metadata`) compare their value schemas. */
function diffAdditionalProperties(
  ctx: DiffContext,
  bf: FlatSchema,
  hf: FlatSchema,
  dir: Direction,
) {
  const b = bf.keywords.additionalProperties;
  const h = hf.keywords.additionalProperties;
  if (isObject(b) && isObject(h)) {
    diffSchema(
      ctx,
      { node: b, pointer: appendPointer(bf.pointer, 'additionalProperties') },
      { node: h, pointer: appendPointer(hf.pointer, 'additionalProperties') },
      dir,
    );
    return;
  }
  if (b === h) return;
  // Treat "any value allowed" as the widest, a value schema as narrower, `false` as narrowest.
  const rank = (v: unknown) => (v === false ? 0 : isObject(v) ? 1 : 2);
  const narrowed = rank(h) < rank(b);
  const breaking = dir === 'request' ? narrowed : !narrowed && rank(b) === 1;
  const message = breaking
    ? dir === 'request'
      ? 'request object accepts fewer extra properties: requests valid before may be rejected'
      : 'response map values are no longer constrained: clients may receive values they do not expect'
    : `${dir} \`additionalProperties\` changed compatibly`;
  emit(ctx, 'additional-properties-changed', hf.pointer, breaking, message);
}

function variantKey(doc: DiffContext['base'], loc: NodeAt, disc: string | undefined, i: number) {
  const name = refName(loc.node);
  if (name) return name;
  if (disc) {
    const prop = flattenSchema(doc, loc).properties.get(disc);
    const values = prop && asObject(locate(doc, prop).node).enum;
    if (Array.isArray(values) && values.length === 1) return `${disc}=${String(values[0])}`;
  }
  return `#${i}`;
}

/**
 * `oneOf`/`anyOf` rules. Variants pair up by `$ref` name, then by discriminator value, then by
 * position. A request variant removed breaks senders. A response variant added is not breaking
 * when a `discriminator` names it (clients switch on the tag and must ignore unknown tags, like
 * unknown enum values); without one, clients cannot tell the new shape apart, so it breaks.
 */
function diffVariants(ctx: DiffContext, bf: FlatSchema, hf: FlatSchema, dir: Direction) {
  const word =
    Array.isArray(hf.keywords.oneOf) || Array.isArray(bf.keywords.oneOf) ? 'oneOf' : 'anyOf';
  const bv = bf.keywords[word];
  const hv = hf.keywords[word];
  if (!Array.isArray(bv) && !Array.isArray(hv)) return;
  if (!Array.isArray(bv) || !Array.isArray(hv)) {
    emit(
      ctx,
      'composition-changed',
      hf.pointer,
      true,
      `${dir} schema switched to or from \`${word}\`: the shape clients handle changed`,
    );
    return;
  }
  const disc = (k: Record<string, unknown>) => {
    const d = asObject(k.discriminator).propertyName;
    return typeof d === 'string' ? d : undefined;
  };
  const bd = disc(bf.keywords);
  const hd = disc(hf.keywords);
  const index = (
    doc: DiffContext['base'],
    list: unknown[],
    pointer: string,
    d: string | undefined,
  ) =>
    new Map(
      list.map((node, i) => {
        const loc = { node, pointer: appendPointer(pointer, word, i) };
        return [variantKey(doc, loc, d, i), loc] as const;
      }),
    );
  const bMap = index(ctx.base, bv, bf.pointer, bd);
  const hMap = index(ctx.head, hv, hf.pointer, hd);
  for (const [key, loc] of bMap) {
    const match = hMap.get(key);
    if (match) {
      diffSchema(ctx, loc, match, dir);
      continue;
    }
    const breaking = dir === 'request';
    emit(
      ctx,
      'variant-removed',
      loc.pointer,
      breaking,
      breaking
        ? `request \`${word}\` variant ${key} removed: clients sending that shape are rejected`
        : `response \`${word}\` variant ${key} removed: the API no longer sends that shape`,
    );
  }
  for (const [key, loc] of hMap) {
    if (bMap.has(key)) continue;
    const breaking = dir === 'response' && !hd;
    emit(
      ctx,
      'variant-added',
      loc.pointer,
      breaking,
      dir === 'request'
        ? `request \`${word}\` variant ${key} added`
        : breaking
          ? `response \`${word}\` variant ${key} added without a discriminator: clients cannot recognise the new shape`
          : `response \`${word}\` variant ${key} added: not breaking by policy, clients must ignore unknown \`${hd}\` values`,
    );
  }
}
