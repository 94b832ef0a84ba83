/**
 * The scopes of API keys (docs/design.md#keys; spec/openapi.yaml `x-scopes`). One list for the
 * server's key store and authorization and the lint rules that check the spec's `x-scopes`.
 */

/** Every scope an operation can require. */
export const ALL_SCOPES = [
  'patients:read',
  'patients:write',
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
