/**
 * Finds references a page would load from another origin: script and stylesheet URLs,
 * preloads, icons, ES module imports, CSS `url()` and `@import` (fonts included). Plain links
 * (`<a href>`) are not loads and are ignored.
 */
export function externalLoads(html: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /<script\b[^>]*\bsrc\s*=\s*["']?([^"'\s>]+)/gi,
    /<link\b[^>]*\bhref\s*=\s*["']?([^"'\s>]+)/gi,
    /<(?:img|iframe|source|video|audio|embed)\b[^>]*\bsrc\s*=\s*["']?([^"'\s>]+)/gi,
    /\bimport\s*(?:[\w*{}\s,]+from\s*)?["'`]([^"'`]+)["'`]/g,
    /\bimport\s*\(\s*["'`]([^"'`]+)["'`]\s*\)/g,
    /url\(\s*["']?([^"')\s]+)/gi,
    /@import\s+["']([^"']+)["']/gi,
  ];
  for (const pattern of patterns) {
    for (const match of html.matchAll(pattern)) {
      const target = match[1] ?? '';
      if (/^(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(target) && !/^file:/i.test(target)) {
        found.add(target);
      }
    }
  }
  return [...found].sort();
}
