import { inlineScriptHashes } from '../../server/docs/inline-scripts.js';
import { contentSecurityPolicy } from '../../server/docs/security-headers.js';
import { withoutRemoteLogo } from './remote-logo.js';

/**
 * Makes Redoc's server-rendered page (`redocly build-docs --inlineBundle`) self-contained and
 * locked down: the remote logo is dropped and a `<meta>` Content-Security-Policy pins every
 * inline script by hash, so the page can load nothing from another origin, even when opened
 * from disk.
 */
export function hardenStaticPage(html: string): string {
  const page = withoutRemoteLogo(html);
  // frame-ancestors is ignored (with a console warning) in a <meta> policy.
  const csp = contentSecurityPolicy(inlineScriptHashes(page))
    .split('; ')
    .filter((directive) => !directive.startsWith('frame-ancestors'))
    .join('; ');
  const head = `<meta http-equiv="Content-Security-Policy" content="${csp}">\n  <link rel="icon" href="data:,">`;
  return page.replace(/<head>/i, `<head>\n  ${head}`);
}
