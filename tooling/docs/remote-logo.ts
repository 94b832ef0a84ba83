const REMOTE_LOGO = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
// An empty 1×1 SVG: a valid image, so no broken-image box or alt text appears in its place.
const BLANK_IMAGE =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

/**
 * Redoc draws its attribution logo from cdn.redoc.ly. The CSP would block it, but the browser
 * would still try; a blank inline image takes its place, and the "API docs by Redocly" link
 * stays.
 */
export function withoutRemoteLogo(code: string): string {
  return code.replace(REMOTE_LOGO, BLANK_IMAGE);
}
