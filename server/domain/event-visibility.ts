/**
 * Which events a key may read (spec: Events tag). An event carries its object whole (a
 * patient's name and birth date, a claim's diagnoses), so reading it is reading that object:
 * a key sees an event only if it may read the object's resource. `events:read` alone shows
 * nothing; with `billing:read` as well it shows the claim events, and so on.
 */

import { type Scope, type ScopedKey, scopeGranted } from '../../contract/scopes.js';
import { RESOURCES } from '../resources/index.js';
import type { EventType } from '../resources/resource.js';

/** An event type's family: the object it is about (`claim` for `claim.paid`). */
export type EventFamily = EventType extends `${infer F}.${string}` ? F : never;

/**
 * The scope that reads each family's object: the read scope of the resource of that name
 * (server/resources/), which is the `x-scopes` of its retrieve operation in `spec/openapi.yaml`
 * (`test/domain/event-visibility.test.ts` holds them equal).
 */
export const EVENT_FAMILY_SCOPES = Object.fromEntries(
  RESOURCES.map((resource) => [resource.name, resource.readScope]),
) as Readonly<Record<EventFamily, Scope>>;

/** The family of an event type or wildcard (`claim.paid`, `claim.*` → `claim`). */
export function eventFamily(type: string): string {
  const dot = type.indexOf('.');
  return dot === -1 ? type : type.slice(0, dot);
}

/** The scope that reads a family's events, or `undefined` for a family this build lacks. */
export function eventFamilyScope(family: string): Scope | undefined {
  return Object.hasOwn(EVENT_FAMILY_SCOPES, family)
    ? EVENT_FAMILY_SCOPES[family as EventFamily]
    : undefined;
}

/**
 * Whether a key may read events of `family`. Secret keys read every family. An ephemeral key
 * reads none: it is limited to one patient and events are not (the spec lets ephemeral keys
 * call no events operation anyway). A family this build does not know needs a secret key.
 */
export function canReadEventFamily(key: ScopedKey, family: string): boolean {
  if (key.kind === 'secret') return true;
  const scope = eventFamilyScope(family);
  if (scope === undefined || key.kind === 'ephemeral') return false;
  return scopeGranted(key.scopes, scope);
}

/** The families a key may read: `all` for a secret key, else the list (maybe empty). */
export function readableEventFamilies(key: ScopedKey): 'all' | EventFamily[] {
  if (key.kind === 'secret') return 'all';
  return (Object.keys(EVENT_FAMILY_SCOPES) as EventFamily[]).filter((family) =>
    canReadEventFamily(key, family),
  );
}
