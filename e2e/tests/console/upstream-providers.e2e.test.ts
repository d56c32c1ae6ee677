/**
 * The admin console's upstream identity provider screen and a user's linked identities, in Debian's Chromium driven
 * by playwright-core against the whole topology behind the dev router. A system-tenant administrator signs in,
 * switches to the seeded tenant, sees the API's problem next to the field it names, adds an OpenID Connect provider
 * (the client secret is write-only: the list says only "secret set"), reads the URLs to register at the OP, edits it
 * to disabled (the secret kept), enables it again, links an upstream identity to a user by hand and removes the
 * link, then deletes the provider. Each change is read back through the management API.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { repoRoot } from '@idp/testing';
import { launchChromium, newProbedPage, screenshots, seriousA11yViolations } from '../../src/clients/browser';
import { clientCredentialsToken } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

jest.setTimeout(240_000);

let h: Harness;
let browser: Browser;
let base: string;
let CONSOLE: string;
let systemToken: string;
const ADMIN = { username: 'root-admin', password: 'the console administrator password 1' };
const ISSUER = 'http://127.0.0.1:9/realms/x';
const ALIAS = 'corp-sso';

async function api(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${base}/auth/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

beforeAll(async () => {
  if (!existsSync(join(repoRoot(), 'console', 'dist', 'index.html'))) {
    throw new Error(
      'console/dist is missing: build the console first (npm run build, or npm run build -w @idp/console)',
    );
  }
  await startAll([startHarness('console-upstream').then((v) => (h = v)), launchChromium().then((v) => (browser = v))]);
  base = h.topology.baseUrl;
  CONSOLE = `${base}/auth/admin/console/`;
  const s = h.topology.secrets;
  systemToken = (
    await clientCredentialsToken(
      base,
      h.topology.systemTenantId,
      s.bootstrapAdminClientId,
      s.bootstrapAdminClientSecret,
      'urn:idp:management',
    )
  ).access_token;
  const sys = h.topology.systemTenantId;
  const user = await api('POST', `/tenants/${sys}/users`, systemToken, {
    username: ADMIN.username,
    password: ADMIN.password,
  });
  expect(user.status).toBe(201);
  const roles = await api('GET', `/tenants/${sys}/roles`, systemToken);
  const role = (roles.body.items as Array<{ id: string; name: string }>).find((r) => r.name === 'system-admin')!;
  expect((await api('PUT', `/tenants/${sys}/users/${String(user.body.id)}/roles/${role.id}`, systemToken)).status).toBe(
    204,
  );
}, 180_000);

afterAll(async () => {
  await ifAssigned(browser)?.close();
  await ifAssigned(h)?.stop();
});

async function checkScreen(page: Page, name: string): Promise<void> {
  await screenshots(page, `console-${name}`);
  expect(await seriousA11yViolations(page)).toEqual([]);
}

async function signIn(page: Page, tenantId: number, who: { username: string; password: string }): Promise<void> {
  await page.goto(CONSOLE);
  await page.getByLabel('Tenant id').fill(String(tenantId));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill(who.username);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 20_000 });
}

async function open(page: Page, title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: title, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
}

const form = (page: Page, name: string) => page.getByRole('form', { name });

test('an administrator adds, edits, disables and deletes an OIDC provider and links an identity to a user', async () => {
  const tenantId = h.tenant.tenantId;
  const provider = () => api('GET', `/tenants/${tenantId}/upstream-providers/${ALIAS}`, systemToken);
  const bob = await api('POST', `/tenants/${tenantId}/users`, systemToken, {
    username: 'bob-federated',
    password: 'bob signs in through corp sso 1',
  });
  expect(bob.status).toBe(201);
  const bobId = String(bob.body.id);
  const links = () => api('GET', `/tenants/${tenantId}/users/${bobId}/upstream-links`, systemToken);

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page, cspViolations } = await newProbedPage(context);
  await signIn(page, h.topology.systemTenantId, ADMIN);
  await page.getByLabel('Tenant', { exact: true }).selectOption(String(tenantId));
  await open(page, 'Upstream identity providers');

  // A problem of the API (RFC 9457, invalid_params) is shown next to the field it names: http only to loopback.
  const add = form(page, 'Add an upstream identity provider');
  await add.getByLabel('Alias', { exact: true }).fill(ALIAS);
  await add.getByLabel('Display name', { exact: true }).fill('Corp SSO');
  await add.getByLabel('Issuer', { exact: true }).fill('http://idp.example.com/realms/x');
  await add.getByLabel('Client id', { exact: true }).fill('idp-broker');
  await add.getByLabel('Client secret', { exact: true }).fill('the upstream client secret 1');
  await add.getByRole('button', { name: 'Add provider' }).click();
  const issuerError = add.locator('.field-error[data-field="body.oidc.issuer"]');
  await issuerError.waitFor();
  expect(await issuerError.textContent()).toContain('https');
  expect((await provider()).status).toBe(404);
  await checkScreen(page, 'upstream-problem');

  await add.getByLabel('Issuer', { exact: true }).fill(ISSUER);
  await add.getByLabel('Email domains (space separated)', { exact: true }).fill('corp.example');
  await add.getByRole('button', { name: 'Add provider' }).click();
  const row = page.locator(`tr[data-provider="${ALIAS}"]`);
  await row.waitFor();
  expect(await row.textContent()).toContain('secret set');
  expect(await row.textContent()).toContain('corp.example');
  let stored = await provider();
  expect(stored.status).toBe(200);
  expect(stored.body).toMatchObject({
    alias: ALIAS,
    type: 'oidc',
    displayName: 'Corp SSO',
    enabled: true,
    emailDomains: ['corp.example'],
    authoritativeEmailDomains: [],
    oidc: { issuer: ISSUER, clientId: 'idp-broker', clientSecretSet: true, pkce: true, subjectClaim: 'sub' },
  });
  expect(JSON.stringify(stored.body)).not.toContain('the upstream client secret 1');
  // What to register at the OP, to copy.
  const redirect = page.getByLabel(`Redirect URI of ${ALIAS}`, { exact: true });
  expect(await redirect.inputValue()).toBe((stored.body.endpoints as { redirectUri: string }).redirectUri);
  expect(await redirect.inputValue()).toMatch(new RegExp(`/auth/${tenantId}/upstream/${ALIAS}/callback$`));
  await checkScreen(page, 'upstream-providers');

  // Edit on the provider's page (opened by its row's link; a new provider's page opens at once): disabled, another
  // display name and a mapper; the secret, left empty, is kept.
  await row.getByRole('link', { name: ALIAS }).click();
  await page.getByRole('heading', { level: 2, name: `Upstream provider ${ALIAS} · Corp SSO` }).waitFor();
  const edit = form(page, `Edit ${ALIAS}`);
  await edit.getByTestId('secret-state').filter({ hasText: 'A secret is set' }).waitFor();
  expect(await edit.getByLabel('Client secret', { exact: true }).inputValue()).toBe('');
  await edit.getByLabel('Display name', { exact: true }).fill('Corp single sign-on');
  await edit.getByLabel('Enabled', { exact: true }).uncheck();
  await edit.getByRole('button', { name: 'Add a mapper' }).click();
  await edit.getByLabel('Source of mapper 1').fill('department');
  await edit.getByLabel('Target of mapper 1').selectOption('customClaims');
  await edit.getByLabel('Claim of mapper 1').fill('department');
  await edit.getByRole('button', { name: `Save ${ALIAS}` }).click();
  await page.locator(`tr[data-provider="${ALIAS}"][data-enabled="false"]`).waitFor();
  expect(await row.textContent()).toContain('Corp single sign-on');
  expect(await row.textContent()).toContain('secret set');
  stored = await provider();
  expect(stored.body).toMatchObject({
    displayName: 'Corp single sign-on',
    enabled: false,
    mappers: [{ source: 'department', target: 'customClaims', claim: 'department' }],
    oidc: { issuer: ISSUER, clientSecretSet: true },
  });
  await checkScreen(page, 'upstream-provider-edit');

  // The row's toggle enables it again.
  await page.getByRole('button', { name: `Enable ${ALIAS}` }).click();
  await page.locator(`tr[data-provider="${ALIAS}"][data-enabled="true"]`).waitFor();
  expect((await provider()).body.enabled).toBe(true);

  // A linked identity on the user page: an unknown alias is refused next to the field, then linked and removed.
  await open(page, 'Users');
  await page.getByRole('button', { name: 'Linked identities of bob-federated' }).click();
  const lf = form(page, 'Link an upstream identity');
  await lf.getByLabel('Provider alias', { exact: true }).fill('no-such-idp');
  await lf.getByLabel('Upstream subject', { exact: true }).fill('f:1234:bob');
  await lf.getByRole('button', { name: 'Link identity' }).click();
  await lf.locator('.field-error[data-field="body.provider"]').waitFor();
  await lf.getByLabel('Provider alias', { exact: true }).fill(ALIAS);
  await lf.getByRole('button', { name: 'Link identity' }).click();
  const link = page.locator(`tr[data-link="${ALIAS}"][data-subject="f:1234:bob"]`);
  await link.waitFor();
  expect(await link.textContent()).toContain('admin');
  expect((await links()).body.items).toMatchObject([
    { provider: ALIAS, subject: 'f:1234:bob', issuer: ISSUER, linkedBy: 'admin' },
  ]);
  await checkScreen(page, 'users-linked-identities');
  await page.getByRole('button', { name: `Delete the link to ${ALIAS}` }).click();
  await page.getByRole('button', { name: `Really delete the link to ${ALIAS}` }).click();
  await link.waitFor({ state: 'detached' });
  expect((await links()).body.items).toEqual([]);

  // Delete, with its confirmation step.
  await open(page, 'Upstream identity providers');
  await page.getByRole('button', { name: `Delete ${ALIAS}` }).click();
  await page.getByRole('button', { name: `Really delete ${ALIAS}` }).click();
  await row.waitFor({ state: 'detached' });
  expect((await provider()).status).toBe(404);
  expect(cspViolations).toEqual([]);
  await context.close();
});
