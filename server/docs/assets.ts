import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { PreparedAsset } from './prepared.js';

/** Bytes ready to send: a gzip copy made on first demand, and a strong ETag. */
export interface Asset {
  readonly type: string;
  readonly body: Buffer;
  readonly etag: string;
  gzipped(): Buffer;
}

/** Every whitelisted asset, plus `version`: a digest of all of them, used in their URLs. */
export interface AssetManifest {
  readonly version: string;
  readonly assets: ReadonlyMap<string, Asset>;
}

/** `body` with its ETag (a digest of the bytes) and a lazily made gzip copy. */
export function makeAsset(type: string, body: Buffer): Asset {
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 22);
  let gz: Buffer | undefined;
  return {
    type,
    body,
    etag: `"${digest}"`,
    gzipped: () => {
      gz ??= gzipSync(body, { level: 6 });
      return gz;
    },
  };
}

/**
 * The served assets. The URL version changes whenever any file changes, so browsers may cache
 * assets for a year without ever running stale code.
 */
export function assetManifest(prepared: readonly PreparedAsset[]): AssetManifest {
  const assets = new Map<string, Asset>();
  const all = createHash('sha256');
  for (const { name, type, body } of [...prepared].sort((a, b) => a.name.localeCompare(b.name))) {
    const asset = makeAsset(type, body);
    assets.set(name, asset);
    all.update(name).update(asset.etag);
  }
  return { version: all.digest('hex').slice(0, 12), assets };
}
