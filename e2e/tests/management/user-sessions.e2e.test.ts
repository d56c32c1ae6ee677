/**
 * An administrator runs a person's account through the management API, and the person's browser feels it:
 * - the person's sign-in session and consent are listed; ending the session signs the browser out (the next
 *   `prompt=none` authorization answers login_required), "sign out everywhere" ends all of them;
 * - withdrawing a consent removes it, and its refresh token stops working;
 * - a one-time password reset link: the person opens it, chooses a password, is signed out everywhere, signs in with
 *   the new password and not the old one; the link works once.
 */
import { createHash, randomBytes } from 'node:crypto';
import { basicAuth, clientCredentialsToken } from '../../src/clients/browserless-login';
import { FormAgent, parseForms } from '../../src/clients/form-agent';
import { tenantAdminCall } from '../../src/clients/tenant-admin';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

jest.setTimeout(120_000);

let h: Harness;
let admin: string;
let issuer: string;

const manage = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  tenantAdminCall<T>({ baseUrl: h.topology.baseUrl, tenantId: h.tenant.tenantId, token: admin }, method, path, body);

beforeAll(async () => {
  h = await startHarness('user-sessions');
  issuer = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
  admin = (
    await clientCredentialsToken(
      h.topology.baseUrl,
      h.tenant.tenantId,
      h.tenant.admin.clientId,
      h.tenant.admin.clientSecret,
      'urn:idp:management',
    )
  ).access_token;
});

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

/** PKCE (RFC 7636) of the authorization requests: the verifier of the last one, for its code. */
let verifier = '';

/** An authorization request of the seeded client. */
function authorizeUrl(extra: Record<string, string> = {}): string {
  verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${issuer}/authorize`);
  url.search = new URLSearchParams({
    client_id: h.tenant.client.clientId,
    response_type: 'code',
    redirect_uri: h.tenant.client.redirectUri,
    scope: 'openid profile',
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
  return url.toString();
}

/** Signs the person in with `password` in `browser`; the redirect it ends at. */
async function signIn(browser: FormAgent, password = h.tenant.user.password, extra: Record<string, string> = {}) {
  return browser.drive(
    authorizeUrl(extra),
    { username: h.tenant.user.username, password },
    h.tenant.client.redirectUri,
  );
}

/** Whether the browser's provider session is alive: prompt=none comes back with a code, or login_required. */
async function stillSignedIn(browser: FormAgent): Promise<boolean> {
  const end = await browser.drive(
    authorizeUrl({ prompt: 'none' }),
    { username: '', password: '' },
    h.tenant.client.redirectUri,
  );
  const url = new URL(end.url);
  if (url.searchParams.get('code')) return true;
  expect(url.searchParams.get('error')).toBe('login_required');
  return false;
}

const sessionsOf = async () =>
  (
    await manage<{ items: Array<{ id: string; clients: string[]; signedInAt?: string; amr?: string[] }> }>(
      'GET',
      `/users/${h.tenant.user.id}/sessions`,
    )
  ).body.items;

test("the person's session is listed; ending it signs the browser out, and sign-out-everywhere ends the rest", async () => {
  const browser = new FormAgent();
  expect(new URL((await signIn(browser)).url).searchParams.get('code')).toBeTruthy();
  const other = new FormAgent();
  await signIn(other);
  const sessions = await sessionsOf();
  expect(sessions).toHaveLength(2);
  for (const s of sessions) {
    expect(s.clients).toContain(h.tenant.client.clientId);
    expect(Date.parse(s.signedInAt!)).toBeGreaterThan(Date.now() - 120_000);
  }
  expect(await stillSignedIn(browser)).toBe(true);

  // The browser's own session is the one whose id its prompt=none keeps alive: end each in turn.
  expect((await manage('DELETE', `/users/${h.tenant.user.id}/sessions/${sessions[0]!.id}`)).status).toBe(204);
  expect(await sessionsOf()).toHaveLength(1);
  const [first, second] = [await stillSignedIn(browser), await stillSignedIn(other)];
  expect([first, second].sort()).toEqual([false, true]);

  expect((await manage('DELETE', `/users/${h.tenant.user.id}/sessions/${sessions[0]!.id}`)).status).toBe(404);
  expect(await manage('DELETE', `/users/${h.tenant.user.id}/sessions`)).toEqual({ status: 200, body: { ended: 1 } });
  expect(await stillSignedIn(browser)).toBe(false);
  expect(await stillSignedIn(other)).toBe(false);
  expect(await sessionsOf()).toEqual([]);
  // Another user's path, or an unknown user, shows nothing of this one.
  expect((await manage('GET', `/users/${'0'.repeat(24)}/sessions`)).status).toBe(404);
});

/** Signs in with offline_access and consent in a new browser: the refresh token, and a way to use it. */
async function refreshable(): Promise<{ token: string; refresh: () => Promise<Response> }> {
  const end = await signIn(new FormAgent(), h.tenant.user.password, {
    scope: 'openid offline_access',
    prompt: 'consent',
  });
  const code = new URL(end.url).searchParams.get('code')!;
  const auth = basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret);
  const form = { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' };
  const tokens = (await (
    await fetch(`${issuer}/oidc/token`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: h.tenant.client.redirectUri,
        code_verifier: verifier,
      }),
    })
  ).json()) as { refresh_token?: string };
  expect(tokens.refresh_token).toBeTruthy();
  return {
    token: tokens.refresh_token!,
    refresh: () =>
      fetch(`${issuer}/oidc/token`, {
        method: 'POST',
        headers: form,
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }),
      }),
  };
}

test('withdrawing a consent removes the grant and its refresh token stops working', async () => {
  const browser = new FormAgent();
  const end = await signIn(browser, h.tenant.user.password, { scope: 'openid offline_access', prompt: 'consent' });
  const code = new URL(end.url).searchParams.get('code')!;
  const tokens = (await (
    await fetch(`${issuer}/oidc/token`, {
      method: 'POST',
      headers: {
        authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: h.tenant.client.redirectUri,
        code_verifier: verifier,
      }),
    })
  ).json()) as { refresh_token?: string };
  expect(tokens.refresh_token).toBeTruthy();
  const refresh = () =>
    fetch(`${issuer}/oidc/token`, {
      method: 'POST',
      headers: {
        authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }),
    });

  const grants = await manage<{ items: Array<{ id: string; clientId: string; scopes: string[] }> }>(
    'GET',
    `/users/${h.tenant.user.id}/grants`,
  );
  // One grant per sign-in session of the client: this one holds offline_access.
  const grant = grants.body.items.find(
    (g) => g.clientId === h.tenant.client.clientId && g.scopes.includes('offline_access'),
  );
  expect(grant?.scopes).toEqual(expect.arrayContaining(['openid', 'offline_access']));
  const refreshed = (await (await refresh()).json()) as { refresh_token?: string };
  expect(refreshed.refresh_token).toBeTruthy();
  tokens.refresh_token = refreshed.refresh_token;

  expect((await manage('DELETE', `/users/${h.tenant.user.id}/grants/${grant!.id}`)).status).toBe(204);
  expect(
    (await manage<{ items: unknown[] }>('GET', `/users/${h.tenant.user.id}/grants`)).body.items.filter(
      (g) => (g as { id: string }).id === grant!.id,
    ),
  ).toEqual([]);
  const after = await refresh();
  expect(after.status).toBe(400);
  expect(((await after.json()) as { error: string }).error).toBe('invalid_grant');
  expect((await manage('DELETE', `/users/${h.tenant.user.id}/grants/${grant!.id}`)).status).toBe(404);
});

test('a one-time reset link: the person chooses a new password, is signed out, signs in with it; the link works once', async () => {
  const signedIn = new FormAgent();
  await signIn(signedIn);
  expect(await stillSignedIn(signedIn)).toBe(true);
  // A refresh token obtained with the old password.
  const before = await refreshable();

  const made = await manage<{ path: string; expiresAt: string }>('POST', `/users/${h.tenant.user.id}/password-reset`, {
    ttlSeconds: 600,
  });
  expect(made.status).toBe(201);
  expect(Date.parse(made.body.expiresAt) - Date.now()).toBeGreaterThan(500_000);
  const link = `${h.topology.baseUrl}${made.body.path}`;

  const person = new FormAgent();
  const page = await person.request(link);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain(h.tenant.user.username);
  const [form] = parseForms(html, link);
  // Two different passwords are refused at the field, the link still works.
  const mismatch = await person.submit(form!, { password: 'a-new-passphrase', confirm: 'another-passphrase' });
  expect(mismatch.status).toBe(400);
  expect(await mismatch.text()).toContain('The two passwords differ');
  const short = await person.submit(form!, { password: 'short', confirm: 'short' });
  expect(short.status).toBe(400);
  const newPassword = `new-${randomBytes(6).toString('hex')}`;
  const done = await person.submit(form!, { password: newPassword, confirm: newPassword });
  expect(done.status).toBe(200);
  expect(await done.text()).toContain('Your password was changed');

  // Used up: the same link, by the form or by the page, is refused.
  expect((await person.submit(form!, { password: newPassword, confirm: newPassword })).status).toBe(400);
  expect((await person.request(link)).status).toBe(400);
  // Signed out everywhere, and the refresh token got with the old password is gone; the old password no longer
  // works, the new one does.
  expect(await stillSignedIn(signedIn)).toBe(false);
  const refused = await before.refresh();
  expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);
  const old = await signIn(new FormAgent());
  expect(old.url.startsWith(h.tenant.client.redirectUri)).toBe(false);
  expect(new URL((await signIn(new FormAgent(), newPassword)).url).searchParams.get('code')).toBeTruthy();
  // Put back for the other tests of this file.
  expect(
    (await manage('PUT', `/users/${h.tenant.user.id}/password`, { password: h.tenant.user.password })).status,
  ).toBe(204);
});

test('a reset link of another tenant, a made-up one, or one for a disabled user is refused', async () => {
  const made = await manage<{ path: string }>('POST', `/users/${h.tenant.user.id}/password-reset`, {});
  const token = new URL(made.body.path, h.topology.baseUrl).searchParams.get('token')!;
  expect((await fetch(`${issuer}/account/password-reset?token=${'x'.repeat(43)}`)).status).toBe(400);
  // The system tenant (0) has no such link.
  expect((await fetch(`${h.topology.baseUrl}/auth/0/account/password-reset?token=${token}`)).status).not.toBe(200);
  expect((await manage('PATCH', `/users/${h.tenant.user.id}`, { enabled: false })).status).toBe(200);
  expect((await fetch(`${issuer}/account/password-reset?token=${token}`)).status).toBe(400);
  const refused = await manage<{ title: string }>('POST', `/users/${h.tenant.user.id}/password-reset`, {});
  expect(refused.status).toBe(400);
  expect((await manage('PATCH', `/users/${h.tenant.user.id}`, { enabled: true })).status).toBe(200);
  // Disabling the user ended the link: enabling again does not revive it.
  expect((await fetch(`${issuer}/account/password-reset?token=${token}`)).status).toBe(400);
  // A newer link replaces the older one.
  const first = await manage<{ path: string }>('POST', `/users/${h.tenant.user.id}/password-reset`, {});
  expect((await fetch(`${h.topology.baseUrl}${first.body.path}`)).status).toBe(200);
  const again = await manage<{ path: string }>('POST', `/users/${h.tenant.user.id}/password-reset`, {});
  expect((await fetch(`${h.topology.baseUrl}${first.body.path}`)).status).toBe(400);
  expect((await fetch(`${h.topology.baseUrl}${again.body.path}`)).status).toBe(200);
});
