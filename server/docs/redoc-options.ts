/**
 * Redoc settings shared by the served reference (`/docs`) and the static build
 * (`npm run docs`), so both render the spec the same way.
 */
export const redocOptions = {
  // Redoc 3 reports usage to Redocly's collector unless told not to; a health-care API's
  // documentation must not phone home.
  disableTelemetry: true,
  // The request console lives at /docs/explorer; one console, one place to secure.
  hideTryItPanel: true,
  jsonSamplesExpandLevel: 2,
} as const;

/** The options as `--openapi.<name>=<value>` flags for `redocly build-docs`. */
export function redocCliFlags(): string[] {
  return Object.entries(redocOptions).map(([name, value]) => `--openapi.${name}=${value}`);
}
