/**
 * Real headless Chromium for the page tests: Debian's /usr/bin/chromium (installed by `scripts/tools.sh
 * chromium`, never downloaded) driven by playwright-core. Helpers save screenshots at desktop and phone sizes
 * into the git-ignored test-output/ folder, run axe-core on a page, and record CSP violations.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { repoRoot } from '@idp/testing';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Viewports every page is captured at: desktop and a common phone. */
export const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM_PATH}. The browser tests need Debian's chromium package: run 'bash scripts/tools.sh chromium' ` +
        `(apt-get install -y chromium; scripts/test.sh does this) or set CHROMIUM_PATH to an installed Chromium.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Chromium refuses its sandbox as root (containers, CI): --no-sandbox then.
    chromiumSandbox: typeof process.getuid === 'function' ? process.getuid() !== 0 : true,
    args: [
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-default-apps',
      '--disable-domain-reliability',
      '--disable-sync',
      '--no-first-run',
      '--no-default-browser-check',
      '--metrics-recording-only',
      '--disable-breakpad',
      '--disable-dev-shm-usage',
      '--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication',
    ],
  });
}

export interface PageProbe {
  page: Page;
  /** Console messages reporting Content-Security-Policy violations (should stay empty). */
  cspViolations: string[];
}

/** A new page that records CSP violations. */
export async function newProbedPage(context: BrowserContext): Promise<PageProbe> {
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) cspViolations.push(msg.text());
  });
  return { page, cspViolations };
}

/**
 * A stand-in for the relying parties' web servers (their redirect and post-logout URIs): answers every path with a
 * small page, so the browser really lands there and the test reads the URL. Listens on a free loopback port.
 */
export async function startApplicationStub(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><html lang="en"><head><title>Application</title></head><body><main><h1>Application</h1></main></body></html>',
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function outputDir(...parts: string[]): string {
  const dir = join(repoRoot(), 'test-output', ...parts);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Waits until the page's height stays the same across two reads 50 ms apart (at most about a second). A full-page
 * capture taken while the page still reflows after a viewport change, or while a section is still loading, is
 * stitched from tiles of different layouts: a tall phone capture then shows an empty band. No animation frames: a
 * context with JavaScript disabled never runs them (its pages are captured too).
 */
async function settled(page: Page): Promise<void> {
  let last = -1;
  for (let i = 0; i < 20; i++) {
    const height = await Promise.race([
      page.evaluate<number>('document.documentElement.scrollHeight'),
      new Promise<number>((resolve) => setTimeout(() => resolve(last), 500)),
    ]);
    if (height === last) return;
    last = height;
    await page.waitForTimeout(50);
  }
}

/** Saves `name`-1280x800.png and `name`-390x844.png (full page) and restores the desktop size. */
export async function screenshots(page: Page, name: string): Promise<string[]> {
  const dir = outputDir('browser');
  const files: string[] = [];
  for (const vp of VIEWPORTS) {
    await page.setViewportSize(vp);
    await settled(page);
    const file = join(dir, `${name}-${vp.width}x${vp.height}.png`);
    await page.screenshot({ path: file, fullPage: true });
    files.push(file);
  }
  await page.setViewportSize(VIEWPORTS[0]);
  return files;
}

export interface A11yViolation {
  id: string;
  impact: string | null | undefined;
  help: string;
  targets: string[];
}

/** axe-core (WCAG 2.x A/AA and best practices) on the current page: violations of impact serious or critical. */
export async function seriousA11yViolations(page: Page): Promise<A11yViolation[]> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}
