/**
 * The one renderer: a body in the latest shape, rendered in the version a reader asked for.
 * Routes, error replies and webhook deliveries all leave through it, so there is one rule for a
 * version that is not (or no longer) supported: the body leaves in the latest shape, as a
 * reader with no version gets it. Which version a request names is decided before (a header
 * naming an unknown date is a 400, `server/http/version.ts`); a stored version such as a webhook
 * endpoint's `api_version` may outlive its module, and then the latest is the honest answer.
 */
import { downgradeBody, downgradeText } from './convert.js';
import type { VersionRegistry } from './registry.js';
import type { Json } from './version-change.js';

/** Renders bodies for one registry. */
export interface Renderer {
  /** The version a body for `version` is rendered in: itself when supported, else the latest. */
  target(version: string | null | undefined): string;
  /** A value (object, list, event, error envelope) in the latest shape, rendered in `version`. */
  renderIn(version: string | null | undefined, body: Json): Json;
  /** `renderIn` for JSON text (stored replays, pre-serialised lists): text in, text out. */
  renderTextIn(version: string | null | undefined, text: string): string;
}

/** The renderer of `registry`. */
export function createRenderer(registry: VersionRegistry): Renderer {
  const target = (version: string | null | undefined): string =>
    typeof version === 'string' && registry.supported.includes(version) ? version : registry.latest;
  return {
    target,
    renderIn: (version, body) => downgradeBody(registry, target(version), body),
    renderTextIn: (version, text) => downgradeText(registry, target(version), text),
  };
}
