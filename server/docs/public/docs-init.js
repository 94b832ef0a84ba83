// Renders the reference in the page's #redoc element with the Redoc build the page loaded just
// before (a classic script defining `window.Redoc`). Served by the service itself, so the page
// needs no inline script and the CSP can stay `script-src 'self'`.
//
// An error's `doc_url` (`/docs/errors#<code>`) arrives here as `/docs#<code>`: Redoc knows no
// such anchor, so once it has rendered, the code's entry (`error-code-<code>`, written by
// server/docs/reference-spec.ts) is scrolled into view.
const element = document.getElementById('redoc');

function showErrorCode() {
  const code = decodeURIComponent(location.hash.slice(1));
  if (!/^[a-z][a-z_]*$/.test(code)) return;
  const entry = document.getElementById(`error-code-${code}`);
  if (entry) entry.scrollIntoView({ block: 'center' });
}

if (element && window.Redoc) {
  window.Redoc.init(
    element.dataset.specUrl,
    JSON.parse(element.dataset.options ?? '{}'),
    element,
    showErrorCode,
  );
  window.addEventListener('hashchange', showErrorCode);
}
