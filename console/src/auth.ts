/**
 * Sign-in with the provider's own authorization-code + PKCE flow: the tenant's built-in public client of the
 * console (client id from config.json), redirect URI = this page's URL, resource = the management API. The console
 * holds no secret; its access token (in sessionStorage, this tab only) carries exactly the signed-in user's
 * management scopes.
 */
export const MANAGEMENT_AUDIENCE = 'urn:idp:management';

export interface ConsoleConfig {
  systemTenantId: number;
  clientId: string;
}

export interface Session {
  accessToken: string;
  /** The tenant the user signed in to (the token's issuer). */
  tenantId: number;
  /** Signed in to the system tenant: may work on every tenant. */
  system: boolean;
  scopes: string[];
  subject: string;
  expiresAt: number;
}

const SESSION_KEY = 'idp-console-session';
const PENDING_KEY = 'idp-console-pending';

/** '' or '/_api': the prefix this page was served under (the API and the provider are called the same way). */
export function pathPrefix(): string {
  const i = window.location.pathname.indexOf('/auth/admin/console');
  return i > 0 ? window.location.pathname.slice(0, i) : '';
}

export const consoleUrl = () => `${window.location.origin}${pathPrefix()}/auth/admin/console/`;
export const apiBase = () => `${window.location.origin}${pathPrefix()}`;

export async function loadConfig(): Promise<ConsoleConfig> {
  const res = await fetch(`${consoleUrl()}config.json`, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`config.json: ${res.status}`);
  return (await res.json()) as ConsoleConfig;
}

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const random = (n: number) => b64url(crypto.getRandomValues(new Uint8Array(n)));

async function challengeOf(verifier: string): Promise<string> {
  return b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

/** Leaves for the tenant's authorization endpoint. */
export async function signIn(config: ConsoleConfig, tenantId: number): Promise<void> {
  const verifier = random(32);
  const state = random(16);
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state, tenantId }));
  const q = new URLSearchParams({
    client_id: config.clientId,
    response_type: 'code',
    redirect_uri: consoleUrl(),
    scope: 'openid',
    resource: MANAGEMENT_AUDIENCE,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
    state,
  });
  window.location.assign(`${apiBase()}/auth/${tenantId}/authorize?${q}`);
}

function decodePayload(jwt: string): Record<string, unknown> {
  const part = jwt.split('.')[1] ?? '';
  const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(
    decodeURIComponent(Array.from(json, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')),
  ) as Record<string, unknown>;
}

/** On the redirect back: redeems the code (PKCE), keeps the session. Returns undefined when this is no callback. */
export async function completeSignIn(config: ConsoleConfig): Promise<Session | undefined> {
  const params = new URLSearchParams(window.location.search);
  const code = params.get('code');
  const error = params.get('error');
  if (!code && !error) return undefined;
  window.history.replaceState(null, '', consoleUrl() + window.location.hash);
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as {
    verifier: string;
    state: string;
    tenantId: number;
  } | null;
  sessionStorage.removeItem(PENDING_KEY);
  if (error)
    throw new Error(
      `sign-in refused: ${error}${params.get('error_description') ? ` (${params.get('error_description')})` : ''}`,
    );
  if (!pending || pending.state !== params.get('state'))
    throw new Error('sign-in failed: the answer does not belong to this sign-in (state)');
  const res = await fetch(`${apiBase()}/auth/${pending.tenantId}/oidc/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: consoleUrl(),
      code_verifier: pending.verifier,
      client_id: config.clientId,
      resource: MANAGEMENT_AUDIENCE,
    }),
  });
  const body = (await res.json()) as {
    access_token?: string;
    expires_in?: number;
    error?: string;
    error_description?: string;
  };
  if (!res.ok || !body.access_token)
    throw new Error(
      `sign-in failed: ${body.error ?? res.status}${body.error_description ? ` (${body.error_description})` : ''}`,
    );
  const claims = decodePayload(body.access_token);
  const session: Session = {
    accessToken: body.access_token,
    tenantId: pending.tenantId,
    system: pending.tenantId === config.systemTenantId,
    scopes: typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [],
    subject: String(claims.sub ?? ''),
    expiresAt: Date.now() + (body.expires_in ?? 600) * 1000,
  };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  return session;
}

export function storedSession(): Session | undefined {
  const s = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as Session | null;
  return s && s.expiresAt > Date.now() ? s : undefined;
}

export function signOut(): void {
  sessionStorage.removeItem(SESSION_KEY);
}
