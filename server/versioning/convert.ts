/**
 * Crossing versions at the API boundary: requests of an older version are migrated up, change
 * by change, before validation; responses, errors and events leave the latest shape and are
 * migrated down to the version asked for. A request in the latest version touches none of this.
 */
import type { VersionRegistry } from './registry.js';
import type { Json, JsonObject, RequestParts, VersionChange } from './version-change.js';

/** The request parts migrated from `version` up to the latest, oldest change first. */
export function upgradeRequest(
  registry: VersionRegistry,
  version: string,
  operationId: string,
  parts: RequestParts,
): RequestParts {
  const changes = registry.changesAbove(version);
  let out = parts;
  for (let i = changes.length - 1; i >= 0; i--) {
    const up = changes[i]?.requests[operationId];
    if (up !== undefined) out = up(out);
  }
  return out;
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * One change applied to a value and everything in it, innermost objects first. Copy on write:
 * a value nothing in which changes is returned as it is, so a body crossing a change that
 * touches little allocates little (an appointment crossing 2026-12-01 copies one object, not
 * its whole tree); converters return new objects and never modify what they are given.
 */
function downOne(change: VersionChange, value: Json, version: string): Json {
  if (Array.isArray(value)) {
    let copy: Json[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as Json;
      const down =
        typeof item === 'object' && item !== null ? downOne(change, item, version) : item;
      if (down !== item) {
        copy ??= value.slice();
        copy[i] = down;
      }
    }
    return copy ?? value;
  }
  if (!isObject(value)) return value;
  let out = value;
  for (const key in value) {
    const child = value[key] as Json;
    if (typeof child !== 'object' || child === null) continue;
    const down = downOne(change, child, version);
    if (down !== child) {
      if (out === value) out = { ...value };
      out[key] = down;
    }
  }
  const type = out.object;
  if (typeof type === 'string') {
    const convert = change.objects[type];
    if (convert !== undefined) out = convert(out);
    if (type === 'event') {
      // An event says which version it is rendered in.
      out = { ...out, api_version: version };
      const eventType = out.type;
      const forType = typeof eventType === 'string' ? change.events[eventType] : undefined;
      if (forType !== undefined) out = forType(out);
    }
  }
  if (isObject(out.error) && change.errors !== undefined && type === undefined)
    out = change.errors(out);
  return out;
}

/**
 * A response body (an object, a list, an event or an error envelope) in the latest shape,
 * migrated down to `version`, newest change first. The latest version returns the body itself.
 */
export function downgradeBody(registry: VersionRegistry, version: string, body: Json): Json {
  const changes = registry.changesAbove(version);
  let out = body;
  for (const change of changes) out = downOne(change, out, version);
  return out;
}

/** `downgradeBody` for JSON text (stored replays, pre-serialised lists): text in, text out. */
export function downgradeText(registry: VersionRegistry, version: string, text: string): string {
  if (registry.changesAbove(version).length === 0) return text;
  return JSON.stringify(downgradeBody(registry, version, JSON.parse(text) as Json));
}
