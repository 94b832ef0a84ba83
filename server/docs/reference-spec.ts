/**
 * The spec as the reference (`/docs`, Redoc) reads it, from `/docs/reference.json`:
 *
 * - **Each topic once in the sidebar.** Redoc lists every `#` heading of `info.description` and
 *   every tag; Errors, Pagination, Idempotency and Versioning are both a description section
 *   (the normative rules) and a guide (an `x-traitTag` with a longer explanation), Webhooks
 *   both a section and the operations' tag. Each such section moves to the end of its tag's
 *   description, after a bold "Rules" line (a heading there would be a sidebar entry too).
 * - **An entry per error code** at the end of the Errors guide, from the one error registry
 *   (`server/errors.ts`): status, type and default message, each with the anchor
 *   `error-code-<code>` that `doc_url` (`/docs/errors#<code>`) lands on (`docs-init.js`).
 *
 * `/openapi.*` keep the document as written; only the page's rendering input changes.
 */
import { ERROR_CODES, errorSpec } from '../errors.js';

type Json = Record<string, unknown>;

/** The anchor of an error code's entry in the reference. */
export const errorCodeAnchor = (code: string): string => `error-code-${code}`;

/** The `# Title` sections of a Markdown text: the text before the first, then each section. */
function splitSections(text: string): {
  head: string;
  sections: { title: string; body: string }[];
} {
  const parts = text.split(/^(?=# )/m);
  const head = parts[0]?.startsWith('# ') ? '' : (parts.shift() ?? '');
  const sections = parts.map((part) => {
    const newline = part.indexOf('\n');
    const end = newline === -1 ? part.length : newline;
    return { title: part.slice(2, end).trim(), body: part.slice(end + 1) };
  });
  return { head, sections };
}

/** The error code entries, as Markdown: one list item per code, each with its anchor. */
export function errorCodeEntries(): string {
  const items = ERROR_CODES.map((code) => {
    const { status, type, message } = errorSpec(code);
    return `- <a id="${errorCodeAnchor(code)}"></a>**\`${code}\`** · ${status} · \`${type}\` — ${message}`;
  });
  return `## Codes\n\nEvery \`code\` the API answers with, its HTTP status and \`type\`, and its default \`message\`.\n\n${items.join('\n')}\n`;
}

/** The document Redoc renders (see the file header); `spec` itself is not changed. */
export function referenceSpec(spec: Json): Json {
  const info = (spec.info ?? {}) as Json;
  const tags = Array.isArray(spec.tags) ? (spec.tags as Json[]) : [];
  if (typeof info.description !== 'string') return spec;
  const tagNames = new Set(tags.map((tag) => String(tag.name)));
  const { head, sections } = splitSections(info.description);
  const moved = new Map<string, string>();
  const kept: string[] = [head];
  for (const section of sections) {
    if (tagNames.has(section.title)) moved.set(section.title, section.body.trim());
    else kept.push(`# ${section.title}\n${section.body}`);
  }
  const shapedTags = tags.map((tag) => {
    const name = String(tag.name);
    const rules = moved.get(name);
    const extra = [
      rules === undefined ? '' : `**Rules**\n\n${rules}\n`,
      name === 'Errors' ? errorCodeEntries() : '',
    ].filter((part) => part !== '');
    if (extra.length === 0) return tag;
    const description = typeof tag.description === 'string' ? tag.description.trimEnd() : '';
    return { ...tag, description: [description, ...extra].join('\n\n') };
  });
  return { ...spec, info: { ...info, description: kept.join('') }, tags: shapedTags };
}
