import { readDocument } from './tooling/openapi/load.ts';
import { validateDocument, locateViolations } from './tooling/openapi/validate-document.ts';
for (const f of process.argv.slice(2)) {
  try {
    const { bundled, root } = await readDocument(f);
    const t = performance.now();
    const v = await validateDocument(bundled);
    console.log(f, (performance.now() - t).toFixed(0), 'ms', v.length);
    for (const l of locateViolations(v, root, f, process.cwd()).slice(0, 6)) console.log('  ', l.where, l.pointer, l.message);
  } catch (e) { console.log(f, 'ERR', (e as Error).message.slice(0, 100)); }
}
