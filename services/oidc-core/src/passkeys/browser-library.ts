/**
 * @simplewebauthn/browser's bundle, served from the tenant's own mount so the pages' CSP needs no other origin
 * (the script tag carries the response's nonce).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Request, Response } from 'express';

export const LIBRARY_PATH = '/passkeys/webauthn.js';

let bundle: Buffer | undefined;

function load(): Buffer {
  // The package's CommonJS entry is script/index.js; the browser bundle sits beside it in dist/bundle.
  bundle ??= readFileSync(
    join(dirname(require.resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle', 'index.umd.min.js'),
  );
  return bundle;
}

export function serveBrowserLibrary(_req: Request, res: Response): void {
  res
    .status(200)
    .set({ 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' })
    .type('application/javascript')
    .send(load());
}
