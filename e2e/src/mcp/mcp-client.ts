/**
 * An MCP client as a stock MCP host builds it: the official @modelcontextprotocol/sdk Client over its
 * StreamableHTTPClientTransport with an OAuthClientProvider (the interface the SDK asks the host to implement: where
 * to keep client information, tokens and the PKCE verifier, and how to open the browser). Everything OAuth (the 401
 * and its resource_metadata, RFC 9728 and RFC 8414 discovery, the Client ID Metadata Document or Dynamic Client
 * Registration choice, PKCE, the resource indicator, the token request) is the SDK's own `auth()`.
 *
 * The browser step is Debian's Chromium driven by playwright-core: the user signs in and answers the consent page,
 * and the browser lands on the client's loopback redirect URI (a small local server), which hands the code back.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  UnauthorizedError,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/** One HTTP exchange the SDK made (observed, not changed). */
export interface Exchange {
  method: string;
  url: string;
  status: number;
  wwwAuthenticate: string | null;
}

/** The host's side of the SDK's OAuth client: in memory, one session. */
export class HostOAuthProvider implements OAuthClientProvider {
  clientMetadataUrl?: string;
  private info?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier?: string;
  private discovery?: OAuthDiscoveryState;
  /** The authorization URLs the SDK asked the host to open, in order. */
  readonly authorizationUrls: URL[] = [];
  /** The state sent in the last authorization request. */
  lastState?: string;
  /** Called when the SDK stores client information (after a registration, or the metadata document's URL). */
  onClientInformation?: (info: OAuthClientInformationMixed) => void | Promise<void>;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadata: OAuthClientMetadata,
    clientMetadataUrl?: string,
  ) {
    if (clientMetadataUrl) this.clientMetadataUrl = clientMetadataUrl;
  }
  state(): string {
    this.lastState = randomBytes(16).toString('base64url');
    return this.lastState;
  }
  clientInformation() {
    return this.info;
  }
  async saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
    await this.onClientInformation?.(info);
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'client') this.info = undefined;
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}

/** A fetch that records what the SDK sends and receives (the SDK's `fetch` option; requests pass unchanged). */
export function recordingFetch(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    exchanges.push({
      method: init?.method ?? (input instanceof Request ? input.method : 'GET'),
      url,
      status: res.status,
      wwwAuthenticate: res.headers.get('www-authenticate'),
    });
    return res;
  };
}

/** The client's loopback redirect URI: answers a small page and resolves with the URL the browser came back to. */
export interface RedirectReceiver {
  redirectUrl: string;
  next(): Promise<URL>;
  close(): Promise<void>;
}

export async function startRedirectReceiver(): Promise<RedirectReceiver> {
  let waiting: ((u: URL) => void) | undefined;
  const arrived: URL[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><html lang="en"><head><title>Agent</title></head><body><p>You can close this window.</p></body></html>',
    );
    if (!req.url?.startsWith('/callback')) return;
    const url = new URL(req.url, origin);
    if (waiting) {
      waiting(url);
      waiting = undefined;
    } else arrived.push(url);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    redirectUrl: `${origin}/callback`,
    next: () => {
      const first = arrived.shift();
      if (first) return Promise.resolve(first);
      return new Promise<URL>((resolve) => (waiting = resolve));
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** What the browser step saw. */
export interface BrowserStep {
  /** Where the browser came back to (the redirect URI with code or error). */
  returned: URL;
  /** The consent page's text (empty when no consent page was shown). */
  consentText: string;
  /** The consent page's heading. */
  consentHeading: string;
}

/**
 * The user's part: opens the authorization URL in a fresh browser context, signs in when asked, answers the consent
 * page (Allow, or the only button a refusing page has), and waits for the redirect URI.
 */
export async function browserStep(
  browser: Browser,
  authorizationUrl: URL,
  redirect: RedirectReceiver,
  user: { username: string; password: string },
): Promise<BrowserStep> {
  const context = await browser.newContext();
  try {
    const page: Page = await context.newPage();
    const returned = redirect.next();
    await page.goto(authorizationUrl.href);
    let consentText = '';
    let consentHeading = '';
    const landed = returned.then((u) => ({ kind: 'returned' as const, u }));
    for (let i = 0; i < 4; i++) {
      const next = await Promise.race([
        landed,
        page
          .getByLabel('Password')
          .waitFor({ timeout: 15_000 })
          .then(() => ({ kind: 'login' as const })),
        page
          .getByRole('button', { name: /^(Allow|Deny and go back)$/ })
          .first()
          .waitFor({ timeout: 15_000 })
          .then(() => ({ kind: 'consent' as const })),
      ]);
      if (next.kind === 'returned') return { returned: next.u, consentText, consentHeading };
      if (next.kind === 'login') {
        await page.getByLabel('Username').fill(user.username);
        await page.getByLabel('Password').fill(user.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForLoadState();
        continue;
      }
      consentHeading = (await page.getByRole('heading', { level: 1 }).textContent()) ?? '';
      consentText = await page
        .locator('main')
        .innerText()
        .catch(() => page.locator('body').innerText());
      const allow = page.getByRole('button', { name: 'Allow', exact: true });
      if (await allow.count()) await allow.click();
      else await page.getByRole('button', { name: 'Deny and go back' }).click();
      return { returned: await returned, consentText, consentHeading };
    }
    throw new Error(`the browser step did not finish at ${page.url()}`);
  } finally {
    await context.close();
  }
}

export interface Connected {
  client: Client;
  step: BrowserStep;
}

/**
 * Connects an MCP client the way a host does: connect, and on UnauthorizedError (the SDK has run discovery and
 * registration and asked for the browser) run the browser step, hand the code to `finishAuth` (the SDK's token
 * request), and connect again. Throws when the browser comes back with an error or the token request fails.
 */
export async function connectWithBrowser(o: {
  serverUrl: string;
  provider: HostOAuthProvider;
  exchanges: Exchange[];
  browser: Browser;
  redirect: RedirectReceiver;
  user: { username: string; password: string };
}): Promise<Connected> {
  const transport = () =>
    new StreamableHTTPClientTransport(new URL(o.serverUrl), {
      authProvider: o.provider,
      fetch: recordingFetch(o.exchanges),
    });
  const first = new Client({ name: 'e2e-mcp-host', version: '1.0.0' });
  try {
    await first.connect(transport());
    throw new Error('connected without authorization');
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  const url = o.provider.authorizationUrls.at(-1);
  if (!url) throw new Error('the SDK asked for no authorization');
  const step = await browserStep(o.browser, url, o.redirect, o.user);
  const error = step.returned.searchParams.get('error');
  if (error)
    throw Object.assign(
      new Error(`authorization error: ${error} ${step.returned.searchParams.get('error_description') ?? ''}`),
      { step, oauthError: error },
    );
  if (step.returned.searchParams.get('state') !== o.provider.lastState) throw new Error('state mismatch');
  const t = transport();
  await t.finishAuth(step.returned.searchParams.get('code')!);
  const client = new Client({ name: 'e2e-mcp-host', version: '1.0.0' });
  await client.connect(t);
  return { client, step };
}
