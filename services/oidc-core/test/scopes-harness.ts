/**
 * Drives the flows of the scope and claims integration tests against oidc-core in-process (pages-app.ts: the real
 * app on a loopback port over a fresh database): authorization code + PKCE with login and consent by form posts,
 * device authorization with the device pages, refresh, client credentials, and UserInfo.
 */
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { Browser, type PagesApp } from './pages-app';
import { basicAuth } from '@idp/testing';

export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export type TokenBody = {
  access_token?: string;
  id_token?: string;
  refresh_token?: string;
  scope?: string;
  token_type?: string;
  expires_in?: number;
  error?: string;
  error_description?: string;
  device_code?: string;
  user_code?: string;
  verification_uri?: string;
  verification_uri_complete?: string;
  interval?: number;
};

export const basic = basicAuth;

export async function post(
  app: PagesApp,
  path: string,
  form: Record<string, string>,
  client?: { clientId: string; clientSecret: string },
): Promise<{ status: number; body: TokenBody }> {
  const res = await fetch(`${app.baseUrl}/auth/${app.tenant.tenantId}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      ...(client ? { authorization: basic(client.clientId, client.clientSecret) } : {}),
    },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as TokenBody };
}

/** Hidden inputs of the first form on a page (the device pages' xsrf, user_code, confirm). */
function hiddenInputs(html: string): { action: string; fields: Record<string, string> } {
  const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error(`no form on the page: ${html.slice(0, 200)}`);
  const fields: Record<string, string> = {};
  for (const m of form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[m[1]!] = m[2]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"');
  return { action: form[1]!.replace(/&amp;/g, '&'), fields };
}

/**
 * Logs alice in through the browser steps until the redirect URI (or a redirect-carried error). Login and consent
 * pages are answered by form posts.
 */
async function browse(
  app: PagesApp,
  browser: Browser,
  first: string,
  redirectPrefix: string,
  password = app.tenant.user.password,
): Promise<{ url?: URL; page?: string }> {
  let res: { status: number; location?: string; text: string } = { status: 303, location: first, text: '' };
  const seen = new Set<string>();
  for (let i = 0; i < 15; i++) {
    if (!res.location) return { page: res.text };
    const url = new URL(res.location, app.baseUrl);
    if (url.toString().startsWith(redirectPrefix)) return { url };
    if (/\/interaction\/[^/]+$/.test(url.pathname)) {
      const page = await browser.go(url.pathname);
      if (page.status !== 200) throw new Error(`interaction page answered ${page.status}`);
      res =
        seen.has(url.pathname) || !/name="password"/.test(page.text)
          ? await browser.go(`${url.pathname}/confirm`, { form: {} })
          : await browser.go(`${url.pathname}/login`, { form: { username: app.tenant.user.username, password } });
      seen.add(url.pathname);
      if (res.status >= 400) throw new Error(`interaction answered ${res.status}: ${res.text.slice(0, 200)}`);
      continue;
    }
    res = await browser.go(url.toString());
  }
  return { page: res.text };
}

export interface AuthorizeOptions {
  /** Undefined: no scope parameter at all. */
  scope: string | undefined;
  resource?: string;
  prompt?: string;
}

/** Authorization code + PKCE: returns the token response, or the error the redirect URI received. */
export async function authCodeFlow(
  app: PagesApp,
  client: TestClient,
  o: AuthorizeOptions,
): Promise<{ status: number; body: TokenBody }> {
  const browser = new Browser(app.baseUrl);
  const verifier = randomBytes(32).toString('base64url');
  const params = new URLSearchParams({
    client_id: client.clientId,
    response_type: 'code',
    redirect_uri: client.redirectUri,
    ...(o.scope !== undefined ? { scope: o.scope } : {}),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st',
    // A nonce needs openid (not sent without a scope parameter).
    ...(o.scope !== undefined ? { nonce: 'n' } : {}),
    ...(o.resource ? { resource: o.resource } : {}),
    ...(o.prompt ? { prompt: o.prompt } : {}),
  });
  const { url, page } = await browse(
    app,
    browser,
    `/auth/${app.tenant.tenantId}/authorize?${params}`,
    client.redirectUri,
  );
  if (!url) throw new Error(`authorization did not reach the redirect URI: ${page?.slice(0, 300)}`);
  const code = url.searchParams.get('code');
  if (!code)
    return {
      status: 302,
      body: {
        error: url.searchParams.get('error') ?? 'no_code',
        error_description: url.searchParams.get('error_description') ?? '',
      },
    };
  return post(
    app,
    '/oidc/token',
    { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier },
    client,
  );
}

/** Device authorization: the device asks, alice confirms the user code in a browser, the device polls. */
export async function deviceFlow(
  app: PagesApp,
  client: TestClient,
  o: { scope: string; resource?: string },
): Promise<{ status: number; body: TokenBody }> {
  const start = await post(
    app,
    '/device/auth',
    { client_id: client.clientId, scope: o.scope, ...(o.resource ? { resource: o.resource } : {}) },
    client,
  );
  if (start.status !== 200) return start;
  const browser = new Browser(app.baseUrl);
  const input = await browser.go(`/auth/${app.tenant.tenantId}/device`);
  const entry = hiddenInputs(input.text);
  const confirmPage = await browser.go(entry.action, { form: { ...entry.fields, user_code: start.body.user_code! } });
  const confirm = hiddenInputs(confirmPage.text);
  const submitted = await browser.go(confirm.action, { form: confirm.fields });
  // Login (and consent) interactions, ending on the device success page.
  if (!submitted.location)
    throw new Error(`device confirmation answered ${submitted.status}: ${submitted.text.slice(0, 200)}`);
  const { page } = await browse(app, browser, submitted.location, 'never:');
  if (page === undefined) throw new Error('device flow did not finish');
  return post(
    app,
    '/oidc/token',
    { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: start.body.device_code! },
    client,
  );
}

export function refresh(app: PagesApp, client: TestClient, refreshToken: string, extra: Record<string, string> = {}) {
  return post(app, '/oidc/token', { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra }, client);
}

export function clientCredentials(
  app: PagesApp,
  client: { clientId: string; clientSecret: string },
  extra: Record<string, string>,
) {
  return post(app, '/oidc/token', { grant_type: 'client_credentials', ...extra }, client);
}

export async function userinfo(
  app: PagesApp,
  accessToken: string,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${app.baseUrl}/auth/${app.tenant.tenantId}/me`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The payload of a JWT, or undefined for an opaque token. */
export function jwtPayload(token: string | undefined): Record<string, unknown> | undefined {
  if (!token || token.split('.').length !== 3) return undefined;
  return decodeJwt(token) as Record<string, unknown>;
}
