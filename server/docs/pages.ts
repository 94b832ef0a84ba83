import { redocOptions } from './redoc-options.js';

/** What both pages need to know: where assets live, where the spec is, the API's title. */
export interface PageContext {
  /** URL prefix of the versioned assets, e.g. `/docs/assets/1a2b3c4d5e6f`. */
  readonly assetBase: string;
  readonly specUrl: string;
  readonly title: string;
  /** One more same-origin script for both pages (`npm run dev`'s live reload). */
  readonly extraScript?: string;
  /**
   * The version picker: the supported dated versions (newest first) and the one this page
   * shows. Without it the page shows the latest and no picker.
   */
  readonly versions?: {
    readonly supported: readonly string[];
    readonly shown: string;
    /** Sunset date (`YYYY-MM-DD`) of each deprecated version, shown next to it. */
    readonly sunsets?: Readonly<Record<string, string>>;
  };
}

/** Links to each version's reference and documents; the one shown is marked current. */
function versionPicker(ctx: PageContext): string {
  if (ctx.versions === undefined) return '';
  const [latest] = ctx.versions.supported;
  const links = ctx.versions.supported.map((version) => {
    const href = version === latest ? '/docs' : `/docs?version=${encodeURIComponent(version)}`;
    const sunset = ctx.versions?.sunsets?.[version];
    const label =
      version === latest
        ? `${version} (latest)`
        : sunset === undefined
          ? version
          : `${version} (deprecated, sunset ${sunset})`;
    const current = version === ctx.versions?.shown ? ' aria-current="page"' : '';
    return `<a href="${escapeHtml(href)}"${current}>${escapeHtml(label)}</a>`;
  });
  return `\n<span class="pc-versions" aria-label="API version">Version: ${links.join(' ')}</span>`;
}

/** Escapes text for an HTML element body or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** The served document of the version the page shows. */
function documentUrl(ctx: PageContext, kind: 'json' | 'yaml'): string {
  const shown = ctx.versions?.shown;
  const latest = ctx.versions?.supported[0];
  return shown === undefined || shown === latest
    ? `/openapi.${kind}`
    : `/openapi.${kind}?version=${encodeURIComponent(shown)}`;
}

function layout(ctx: PageContext, heading: string, head: string, body: string): string {
  const title = escapeHtml(`${ctx.title} — ${heading}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ctx.assetBase}/pages.css">
${head}${ctx.extraScript === undefined ? '' : `\n<script type="module" src="${escapeHtml(ctx.extraScript)}"></script>`}
</head>
<body>
<nav class="pc-bar" aria-label="Documentation">
<strong>${escapeHtml(ctx.title)}</strong>
<a href="/docs">Reference</a>
<a href="/docs/explorer">Explorer</a>
<a href="${escapeHtml(documentUrl(ctx, 'yaml'))}">openapi.yaml</a>
<a href="${escapeHtml(documentUrl(ctx, 'json'))}">openapi.json</a>${versionPicker(ctx)}
</nav>
${body}
</body>
</html>
`;
}

/** The reference page: Redoc renders the spec client-side from the service's copy of Redoc. */
export function docsPage(ctx: PageContext): string {
  // Redoc's download button would offer the document it renders (reshaped for the page,
  // reference-spec.ts); it offers the spec as served instead.
  const options = escapeHtml(
    JSON.stringify({ ...redocOptions, downloadDefinitionUrl: documentUrl(ctx, 'json') }),
  );
  return layout(
    ctx,
    'Reference',
    // Redoc's standalone build is a classic script defining `Redoc`; deferred scripts and
    // modules run in document order, so docs-init.js finds it.
    `<script defer src="${ctx.assetBase}/redoc.standalone.js"></script>
<script type="module" src="${ctx.assetBase}/docs-init.js"></script>`,
    `<div id="redoc" data-spec-url="${escapeHtml(ctx.specUrl)}" data-options="${options}"></div>
<noscript>The reference needs JavaScript. The raw description is at <a href="/openapi.yaml">/openapi.yaml</a>.</noscript>`,
  );
}

/**
 * The explorer: RapiDoc with its request console. `load-fonts="false"` stops it fetching Open
 * Sans from Google; the spec's only server is this service, so requests come back here.
 * Request fields start empty: the spec's examples are illustrations, and sending all of them
 * at once (both `starting_after` and `ending_before`, say) is a request the API refuses.
 * Schema descriptions start expanded: collapsed, RapiDoc marks each with its expand toggle,
 * an arrow turned 45° (a stray-looking `↘` beside the text), and hides half the text. It loads
 * the spec shaped for it (`explorer-spec.ts`).
 */
export function explorerPage(ctx: PageContext): string {
  return layout(
    ctx,
    'Explorer',
    `<script defer src="${ctx.assetBase}/rapidoc-min.js"></script>`,
    `<rapi-doc
  spec-url="${escapeHtml(ctx.specUrl)}"
  load-fonts="false"
  regular-font="system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif"
  mono-font="ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace"
  theme="light"
  primary-color="#12355b"
  render-style="focused"
  show-header="false"
  show-info="true"
  allow-authentication="true"
  persist-auth="false"
  allow-server-selection="false"
  allow-spec-url-load="false"
  allow-spec-file-load="false"
  fetch-credentials="omit"
  schema-style="table"
  schema-description-expanded="true"
  default-schema-tab="schema"
  show-method-in-nav-bar="as-colored-text"
  show-curl-before-try="true"
  fill-request-fields-with-example="false"
></rapi-doc>
<noscript>The explorer needs JavaScript.</noscript>`,
  );
}
