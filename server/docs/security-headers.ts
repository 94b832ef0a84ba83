/**
 * Response headers for everything the docs plugin serves. The policy allows the service's own
 * origin only: no CDN, no font service, no analytics collector can be reached from these
 * pages, even if a vendored bundle tries.
 */
export function contentSecurityPolicy(extraScriptSources: readonly string[] = []): string {
  return [
    "default-src 'none'",
    ["script-src 'self'", ...extraScriptSources].join(' '),
    // Redoc (styled-components) and RapiDoc (lit templates) set inline styles at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    // The explorer sends API requests to this service only.
    "connect-src 'self'",
    // Redoc's search index runs in a worker created from a blob of its own code.
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** Headers set on every response of the docs plugin (a page may replace the CSP). */
export const securityHeaders: Readonly<Record<string, string>> = {
  'content-security-policy': contentSecurityPolicy(),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};
