// `npm run dev` only: reloads /docs and /docs/explorer when the service starts serving a new
// contract, and shows why the spec on disk is not being served (lint errors, a YAML error) as
// a banner until it is fixed. Loaded from the service itself, so the pages' CSP stays as is.
const BANNER_ID = 'dev-spec-problem';
const events = new EventSource('/docs/dev/events');
// The contract this page was rendered from, named in this script's URL by the service (empty:
// none yet). Without it, the first state heard is taken as the page's own.
const named = new URL(import.meta.url).searchParams.get('contract');
let shown = named === null ? undefined : named === '' ? null : named;

events.addEventListener('state', (event) => {
  const state = JSON.parse(event.data);
  if (shown !== undefined && state.contract !== shown) {
    location.reload();
    return;
  }
  shown = state.contract;
  showProblem(state.problem);
});

function showProblem(problem) {
  let banner = document.getElementById(BANNER_ID);
  if (!problem) {
    banner?.remove();
    return;
  }
  if (!banner) {
    banner = document.createElement('div');
    banner.id = BANNER_ID;
    banner.setAttribute('role', 'alert');
    banner.style.cssText =
      'position:sticky;top:0;z-index:1000;margin:0;padding:12px 16px;background:#fdecea;' +
      'color:#611a15;border-bottom:2px solid #b3261e;font:14px/1.4 system-ui,sans-serif';
    document.body.prepend(banner);
  }
  const title = document.createElement('strong');
  title.textContent = `${problem.summary}. Still serving the last good contract.`;
  const details = document.createElement('pre');
  details.style.cssText =
    'margin:8px 0 0;white-space:pre-wrap;font:12px/1.4 ui-monospace,monospace';
  details.textContent = problem.lines.join('\n');
  banner.replaceChildren(title, details);
}
