/**
 * The scopes of API keys (docs/design.md#keys; spec/openapi.yaml `x-scopes`). One list for the
 * server's key store and authorization and the lint rules that check the spec's `x-scopes`.
 */

import type { KeyKind } from './key-kinds.js';

/** Every scope an operation can require. */
export const ALL_SCOPES = [
  'patients:read',
  'patients:write',
  'practitioners:read',
  'practitioners:write',
  'appointments:read',
  'appointments:write',
  'billing:read',
  'billing:write',
  'webhooks:read',
  'webhooks:write',
  'events:read',
] as const;

export type Scope = (typeof ALL_SCOPES)[number];

/** The scopes an ephemeral key may be created with. */
export const EPHEMERAL_SCOPES: readonly Scope[] = [
  'patients:read',
  'appointments:read',
  'appointments:write',
];

/** Whether `value` names a scope. */
export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** Whether granted scopes include `needed`; a resource's write scope implies its read scope. */
export function scopeGranted(granted: readonly string[], needed: string): boolean {
  if (granted.includes(needed)) return true;
  if (needed.endsWith(':read'))
    return granted.includes(`${needed.slice(0, -':read'.length)}:write`);
  return false;
}

/** What a scope check reads of a key: its kind and granted scopes. */
export interface ScopedKey {
  readonly kind: KeyKind;
  readonly scopes: readonly string[];
}
