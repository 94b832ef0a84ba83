/**
 * Serving test pages from their own origin: a tiny static server on 127.0.0.1 (a random port,
 * so each server is a separate origin from the API and from each other), and the built client
 * package bundled for the browser with esbuild (openapi-fetch included).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';

/** A listening page server. */
export interface PageServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

/** Serves `files` (path → [content type, body]) on 127.0.0.1; anything else is 404. */
export async function servePages(
  files: Readonly<Record<string, readonly [string, string]>>,
): Promise<PageServer> {
  const server: Server = createServer((request, response) => {
    const file = files[new URL(request.url ?? '/', 'http://page').pathname];
    if (request.method !== 'GET' || file === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': file[0], 'cache-control': 'no-store' }).end(file[1]);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done, fail) => {
        server.closeAllConnections();
        server.close((error) => (error ? fail(error) : done()));
      }),
  };
}

/**
 * The package's browser entry (`dist/index.js` of a built package folder) as one ESM file for
 * the browser. `platform: 'browser'` also fails the bundle if it reaches a Node built-in.
 */
export async function bundleClientForBrowser(packageDir: string): Promise<string> {
  const result = await build({
    entryPoints: [join(packageDir, 'dist', 'index.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
