/**
 * SMART on FHIR scope names (backend services, `system/…`) in terms of our scopes
 * (docs/design.md#fhir-r4). Keys are created with either name and store ours: SMART's
 * `system/Patient.read` is `patients:read`. v1 names (`.read`, `.write`, `.*`) and v2 names
 * (`.rs` read and search, `.cud` create/update/delete, `.cruds` all) are both accepted.
 */
import type { Scope } from './scopes.js';

/** The scope family of each FHIR resource type we serve. */
const RESOURCES: Readonly<Record<string, string>> = {
  Patient: 'patients',
  Practitioner: 'practitioners',
  Appointment: 'appointments',
  Claim: 'billing',
  ClaimResponse: 'billing',
};

/** What each SMART permission grants. */
const PERMISSIONS: Readonly<Record<string, readonly ('read' | 'write')[]>> = {
  read: ['read'],
  rs: ['read'],
  write: ['write'],
  cud: ['write'],
  '*': ['read', 'write'],
  cruds: ['read', 'write'],
};

const SMART = /^system\/([A-Za-z]+)\.(read|write|\*|rs|cud|cruds)$/;

/**
 * Our scopes for a SMART scope name, or `undefined` when `name` is not one we map.
 *
 * @example smartScopes('system/Patient.read') // ['patients:read']
 */
export function smartScopes(name: string): Scope[] | undefined {
  const [, resource, permission] = SMART.exec(name) ?? [];
  const family = resource === undefined ? undefined : RESOURCES[resource];
  const accesses = permission === undefined ? undefined : PERMISSIONS[permission];
  if (family === undefined || accesses === undefined) return undefined;
  return accesses.map((access) => `${family}:${access}` as Scope);
}

/** Scope names with SMART names replaced by ours (others are left for the caller to judge). */
export function expandSmartScopes(names: readonly string[]): string[] {
  return names.flatMap((name) => smartScopes(name) ?? [name]);
}
