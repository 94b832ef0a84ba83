// Renders the reference in the page's #redoc element. Loaded as a module from the service
// itself, so the page needs no inline script and the CSP can stay `script-src 'self'`.
import { init } from './redoc.standalone.js';

const element = document.getElementById('redoc');
if (element) {
  init(element.dataset.specUrl, JSON.parse(element.dataset.options ?? '{}'), element);
}
