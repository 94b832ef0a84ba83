/**
 * An event as one reader sees it: the stored event rendered in the latest shape (`eventOut`),
 * then in the reader's version (a webhook endpoint's `api_version`) by the one renderer.
 */
import { eventOut, type StoredEvent } from '../domain/events.js';
import type { VersionRegistry } from './registry.js';
import { createRenderer } from './render.js';

/** The stored event's JSON text rendered in `version` (latest when unsupported), as JSON text. */
export function renderEventJson(
  registry: VersionRegistry,
  eventJson: string,
  version: string | undefined,
): string {
  // As text: the latest version sends it as it is, an older one parses it as plain JSON.
  const latest = JSON.stringify(eventOut(JSON.parse(eventJson) as StoredEvent));
  return createRenderer(registry).renderTextIn(version, latest);
}
