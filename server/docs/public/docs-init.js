// Renders the reference in the page's #redoc element with the Redoc build the page loaded just
// before (a classic script defining `window.Redoc`). Served by the service itself, so the page
// needs no inline script and the CSP can stay `script-src 'self'`.
const element = document.getElementById('redoc');
if (element && window.Redoc) {
  window.Redoc.init(element.dataset.specUrl, JSON.parse(element.dataset.options ?? '{}'), element);
}
