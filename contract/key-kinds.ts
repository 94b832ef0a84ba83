/**
 * The kinds of API key (spec/openapi.yaml `x-key-kinds`; secret `sk_`, restricted `rk_`,
 * publishable `pk_`, ephemeral `ek_`). One list for the spec's extension, the generated route
 * table, the server's key store and the lint rules.
 */
export const KEY_KINDS = ['secret', 'restricted', 'publishable', 'ephemeral'] as const;

export type KeyKind = (typeof KEY_KINDS)[number];

/** True when `value` names a key kind. */
export function isKeyKind(value: unknown): value is KeyKind {
  return typeof value === 'string' && (KEY_KINDS as readonly string[]).includes(value);
}
