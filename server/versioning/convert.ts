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

/** One change applied to a value and everything in it, innermost objects first. */
function downOne(change: VersionChange, value: Json, version: string): Json {
  if (Array.isArray(value)) return value.map((item) => downOne(change, item, version));
  if (!isObject(value)) return value;
  let out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) out[key] = downOne(change, child, version);
  const type = out.object;
  if (typeof type === 'string') {
    const convert = change.objects[type];
    if (convert !== undefined) out = convert(out);
    if (type === 'event') {
      // An event says which version it is rendered in.
      out.api_version = version;
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
