/**
 * Authorization code + PKCE as a browser would do it, with plain HTTP: follow redirects by hand, keep cookies,
 * post the login form. Used by tests and the demo to obtain a user's access token.
 */
import { createHash, randomBytes } from 'node:crypto';

import { basicAuth } from '@idp/testing';

export { basicAuth };

export class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      if (!pair || eq < 1) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export interface LoginOptions {
  baseUrl: string;
  tenantId: number;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  username: string;
  password: string;
  scope?: string;
  resource?: string;
  /** Use the /_api alias for every browser step. */
  viaAlias?: boolean;
  /** `prompt` of the authorization request (`consent`: the consent page is confirmed; with offline_access, a refresh token). */
  prompt?: string;
  /** How the client authenticates at the token endpoint (RFC 6749 section 2.3.1): as registered; default client_secret_basic. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
}

export interface TokenSet {
  access_token: string;
  id_token?: string;
  refresh_token?: string;
  token_type: string;
  expires_in: number;
  scope?: string;
}

export async function browserlessLogin(o: LoginOptions): Promise<TokenSet> {
  const jar = new CookieJar();
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const prefix = `${o.baseUrl}${o.viaAlias ? '/_api' : ''}/auth/${o.tenantId}`;
  const authorize = new URL(`${prefix}/authorize`);
  authorize.search = new URLSearchParams({
    client_id: o.clientId,
    response_type: 'code',
    redirect_uri: o.redirectUri,
    scope: o.scope ?? 'openid profile',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    ...(o.resource ? { resource: o.resource } : {}),
    ...(o.prompt ? { prompt: o.prompt } : {}),
  }).toString();

  const go = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
    });
    jar.store(res);
    return res;
  };

  let res = await go(authorize.toString());
  let location = res.headers.get('location');
  for (let hops = 0; hops < 10 && location; hops++) {
    const url = new URL(location, o.baseUrl);
    if (url.toString().startsWith(o.redirectUri)) {
      const code = url.searchParams.get('code');
      if (!code)
        throw new Error(
          `authorization failed: ${url.searchParams.get('error')} ${url.searchParams.get('error_description') ?? ''}`,
        );
      const post = o.tokenEndpointAuthMethod === 'client_secret_post';
      const tokenRes = await fetch(`${o.baseUrl}/auth/${o.tenantId}/oidc/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(post ? {} : { authorization: basicAuth(o.clientId, o.clientSecret) }),
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: o.redirectUri,
          code_verifier: verifier,
          ...(post ? { client_id: o.clientId, client_secret: o.clientSecret } : {}),
        }),
      });
      const body = (await tokenRes.json()) as TokenSet & { error?: string; error_description?: string };
      if (!tokenRes.ok) throw new Error(`token request failed: ${body.error} ${body.error_description ?? ''}`);
      return body;
    }
    if (/\/interaction\/[^/]+$/.test(url.pathname)) {
      res = await go(url.toString());
      if (res.status !== 200) throw new Error(`interaction page answered ${res.status}`);
      // The login page asks for the password; the consent page (prompt=consent) is confirmed as it stands.
      const login = /name="password"/.test(await res.text());
      res = await go(`${url.toString()}/${login ? 'login' : 'confirm'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(login ? { username: o.username, password: o.password } : {}),
      });
      if (res.status === 401) throw new Error('login rejected');
    } else {
      res = await go(url.toString());
    }
    location = res.headers.get('location');
  }
  throw new Error(`login flow did not reach the redirect_uri (last status ${res.status})`);
}

export async function clientCredentialsToken(
  baseUrl: string,
  tenantId: number,
  clientId: string,
  clientSecret: string,
  resource: string,
  scope?: string,
): Promise<TokenSet> {
  const res = await fetch(`${baseUrl}/auth/${tenantId}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(clientId, clientSecret),
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, ...(scope ? { scope } : {}) }),
  });
  const body = (await res.json()) as TokenSet & { error?: string; error_description?: string };
  if (!res.ok) throw new Error(`client credentials failed: ${body.error} ${body.error_description ?? ''}`);
  return body;
}
