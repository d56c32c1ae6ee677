/**
 * Serves the admin console (console/, a Vite-built single-page application) under /auth/admin/console/ and the
 * `/_api` alias: its static files, with a CSP that allows only its own scripts and styles and calls to this origin,
 * and `config.json`, the little the page must know before sign-in (the system tenant and its own client id).
 * The console holds no secret: it signs in with its tenant's public client (console-client.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router, type Response } from 'express';
import { CONSOLE_CLIENT_ID } from './console-client';

export interface ConsoleOptions {
  /** Folder of the built console (index.html, assets/); absent or missing: the console answers 404. */
  dir: string | undefined;
  systemTenantId: number;
}

/** The console's Content-Security-Policy: its own files, images as data: URLs (TOTP QR codes), calls to this origin. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function consoleRouter(o: ConsoleOptions): Router {
  const router = Router();
  const dir = o.dir && existsSync(join(o.dir, 'index.html')) ? o.dir : undefined;
  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    next();
  });
  router.get('/config.json', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ systemTenantId: o.systemTenantId, clientId: CONSOLE_CLIENT_ID, available: Boolean(dir) });
  });
  if (!dir) return router;
  const sendIndex = (res: Response) => {
    // The page itself is never cached, so a new build's asset names are picked up at once.
    res.setHeader('Cache-Control', 'no-store');
    res.sendFile(join(dir, 'index.html'));
  };
  // `/auth/admin/console` without its slash: the page's relative asset URLs need the slash.
  router.get('/', (req, res, next) => {
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) {
      const q = req.originalUrl.indexOf('?');
      res.redirect(301, `${req.originalUrl.split('?')[0]}/${q >= 0 ? req.originalUrl.slice(q) : ''}`);
      return;
    }
    next();
  });
  router.get(['/', '/index.html'], (_req, res) => sendIndex(res));
  // Hashed asset names: cached for a year.
  router.use(
    '/assets',
    express.static(join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: true }),
  );
  router.use(express.static(dir, { index: false, maxAge: '1h' }));
  return router;
}
