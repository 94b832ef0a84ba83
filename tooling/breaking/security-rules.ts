import { appendPointer } from '../../contract/pointer.js';
import { type DiffContext, emit } from './context.js';
import { asObject, canonical, show } from './objects.js';
import type { NodeAt } from './types.js';

function stringSet(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String).sort() : [];
}

/**
 * Security rules. Any change of an operation's effective `security`, `x-scopes` or
 * `x-key-kinds` is breaking: a narrowed one makes existing keys get 403, and a widened one
 * changes who can reach the data, which must be reviewed and versioned like any other break.
 */
export function diffOperationSecurity(ctx: DiffContext, b: NodeAt, h: NodeAt) {
  const bo = asObject(b.node);
  const ho = asObject(h.node);
  const bSec = bo.security ?? ctx.base.security;
  const hSec = ho.security ?? ctx.head.security;
  if (canonical(bSec) !== canonical(hSec)) {
    emit(
      ctx,
      'security-changed',
      appendPointer(h.pointer, 'security'),
      true,
      `security requirement ${show(bSec)} → ${show(hSec)}: clients authenticated the old way may get 401`,
    );
  }
  const setRule = (kw: string, denied: string, widened: string) => {
    const before = stringSet(bo[kw]);
    const after = stringSet(ho[kw]);
    if (canonical(before) === canonical(after)) return;
    const lost = before.filter((s) => !after.includes(s));
    const gained = after.filter((s) => !before.includes(s));
    const parts = [] as string[];
    if (lost.length > 0) parts.push(`${show(lost)} removed: ${denied}`);
    if (gained.length > 0) parts.push(`${show(gained)} added: ${widened}`);
    emit(
      ctx,
      kw === 'x-scopes' ? 'scopes-changed' : 'key-kinds-changed',
      appendPointer(h.pointer, kw),
      true,
      `\`${kw}\` ${show(before)} → ${show(after)}; ${parts.join('; ')}`,
    );
  };
  setRule(
    'x-scopes',
    'keys granted only that scope now get 403 insufficient_scope',
    'the access rule changed, so keys may be refused or allowed differently',
  );
  setRule(
    'x-key-kinds',
    'keys of that kind can no longer call it (403)',
    'more kinds of key can now reach this data',
  );
}

/** Security scheme rules: a removed or changed scheme invalidates how clients authenticate. */
export function diffSecuritySchemes(ctx: DiffContext) {
  const b = asObject(asObject(ctx.base.components).securitySchemes);
  const h = asObject(asObject(ctx.head.components).securitySchemes);
  for (const name of Object.keys(b)) {
    const pointer = appendPointer('/components/securitySchemes', name);
    if (!(name in h)) {
      emit(
        ctx,
        'security-scheme-removed',
        pointer,
        true,
        `security scheme ${name} removed: clients using it get 401`,
      );
    } else if (
      canonical({ ...asObject(b[name]), description: 0 }) !==
      canonical({ ...asObject(h[name]), description: 0 })
    ) {
      emit(
        ctx,
        'security-scheme-changed',
        pointer,
        true,
        `security scheme ${name} changed: clients authenticate the old way`,
      );
    }
  }
}
