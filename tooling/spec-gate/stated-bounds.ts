/**
 * A version module may state a bound the server always applied but the released document did
 * not say (an edit marked `alwaysApplied`, docs/design.md#versioning). Comparing that version's
 * derived document with its release then shows a narrowed constraint that is a correction of
 * the text, not a change of behaviour: both gate checks (version coverage against the base,
 * released contracts against the head) leave exactly those out, by this one rule.
 */
import { statedBounds } from '../../server/versioning/derive.js';
import type { VersionRegistry } from '../../server/versioning/registry.js';
import type { Change } from '../breaking/types.js';

/** Whether `change` is a breaking change other than a correction stated by `version`'s module. */
export function breakingBeyondStatedBounds(
  head: unknown,
  registry: VersionRegistry,
  version: string,
): (change: Change) => boolean {
  const stated = statedBounds(head, registry, version);
  return (change) =>
    change.breaking &&
    !(change.kind === 'constraint-changed' && stated.some((p) => change.pointer.startsWith(p)));
}
