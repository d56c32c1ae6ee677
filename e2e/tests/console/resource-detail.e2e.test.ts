/**
 * The console's list + detail pages (console/src/resource-ui.tsx) in Debian's Chromium against the whole topology:
 * a system administrator opens the seeded tenant and
 * - finds its client with the client-id search, edits the redirect and post-logout redirect URIs (a PATCH of those
 *   two fields only, read back through the API), and gets a field-level error in human words for an NHE token
 *   lifetime above the tenant's hard maximum;
 * - edits the resource server's delegation settings and token lifetime (the input carries the OpenAPI limits), and
 *   sees zod's raw "Too big" text of a scope description as a sentence at its field;
 * - on the user's page adds a role, disables and enables the user (each read back through the API), makes a one-time
 *   reset link that the person opens in their own browser to choose a password, signs in with it, and then has that
 *   browser session ended from the console: the person's next prompt=none authorization answers login_required
 *   (OpenID Connect Core 1.0 section 3.1.2.6).
 * Every new screen is checked with axe and captured at 1280x800 and 390x844 (test-output/browser/detail-*.png).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { repoRoot } from '@idp/testing';
import { launchChromium, newProbedPage, screenshots, seriousA11yViolations } from '../../src/clients/browser';
import { clientCredentialsToken } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

jest.setTimeout(120_000);

let h: Harness;
let browser: Browser;
let base: string;
let CONSOLE: string;
let systemToken: string;
let admin: BrowserContext;
let page: Page;
let cspViolations: string[];
let roleId = '';
const ADMIN = { username: 'detail-admin', password: 'the detail screens administrator 1' };
const NEW_PASSWORD = 'a brand new password for alice 1';

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}/auth/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${systemToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

beforeAll(async () => {
  if (!existsSync(join(repoRoot(), 'console', 'dist', 'index.html'))) {
    throw new Error('console/dist is missing: build the console first (npm run build -w @idp/console)');
  }
  await startAll([startHarness('console-detail').then((v) => (h = v)), launchChromium().then((v) => (browser = v))]);
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
  const user = await api('POST', `/tenants/${sys}/users`, ADMIN);
  expect(user.status).toBe(201);
  const roles = await api('GET', `/tenants/${sys}/roles`);
  const role = (roles.body.items as Array<{ id: string; name: string }>).find((r) => r.name === 'system-admin')!;
  expect((await api('PUT', `/tenants/${sys}/users/${String(user.body.id)}/roles/${role.id}`)).status).toBe(204);
  // A role of the seeded tenant's API for the user's page to assign.
  const reader = await api('POST', `/tenants/${h.tenant.tenantId}/roles`, {
    name: 'detail-reader',
    resourceServer: h.tenant.resource,
    permissions: ['orders:read'],
  });
  expect(reader.status).toBe(201);
  roleId = String(reader.body.id);

  admin = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  ({ page, cspViolations } = await newProbedPage(admin));
  await page.goto(CONSOLE);
  await page.getByLabel('Tenant id').fill(String(sys));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 20_000 });
  await page.getByLabel('Tenant', { exact: true }).selectOption(String(h.tenant.tenantId));
}, 180_000);

afterAll(async () => {
  await ifAssigned(admin)?.close();
  await ifAssigned(browser)?.close();
  await ifAssigned(h)?.stop();
});

async function checkScreen(name: string): Promise<void> {
  await screenshots(page, `detail-${name}`);
  expect(await seriousA11yViolations(page)).toEqual([]);
}

async function open(title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: title, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
}

test("a client's redirect URIs are edited on its page; an out-of-range lifetime is explained at its field", async () => {
  const { clientId, redirectUri } = h.tenant.client;
  await open('Clients');
  await page.getByLabel('Client id starts with').fill(clientId.slice(0, 4));
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator(`tr[data-client="${clientId}"]`).waitFor();
  expect(await page.locator('tbody tr[data-client]').count()).toBeGreaterThanOrEqual(1);
  await checkScreen('clients-list');

  await page.locator(`tr[data-client="${clientId}"]`).getByRole('link', { name: clientId }).click();
  const edit = page.getByRole('form', { name: `Edit client ${clientId}` });
  await edit.waitFor();
  expect(await edit.getByLabel('Redirect URIs', { exact: true }).inputValue()).toBe(redirectUri);
  await edit.getByLabel('Redirect URIs', { exact: true }).fill(`${redirectUri}\nhttps://orders.example/cb`);
  await edit.getByLabel('Post-logout redirect URIs').fill('https://orders.example/bye');
  await edit.getByRole('button', { name: `Save client ${clientId}` }).click();
  await edit
    .getByText(`Saved client ${clientId}: redirect URIs, post-logout redirect URIs.`, { exact: true })
    .waitFor();
  const stored = await api('GET', `/tenants/${h.tenant.tenantId}/clients/${clientId}`);
  expect(stored.body).toMatchObject({
    redirectUris: [redirectUri, 'https://orders.example/cb'],
    postLogoutRedirectUris: ['https://orders.example/bye'],
    // Only the changed fields were sent: the rest is as seeded.
    firstParty: true,
    enabled: true,
  });
  await checkScreen('client');

  // Above the tenant's hard maximum: the API refuses; its reason is a sentence at the field.
  const lifetime = edit.getByLabel(/^Max NHE token lifetime/);
  expect(await lifetime.getAttribute('min')).toBe('1');
  await lifetime.fill('99999999');
  await edit.getByRole('button', { name: `Save client ${clientId}` }).click();
  const error = edit.locator('.field-error[data-field="body.config.nhe.maxTokenLifetime"]');
  await error.waitFor();
  expect(await error.textContent()).toMatch(/^Must be at most the tenant's hard maximum token lifetime \(\d+\)\.$/);
  expect(await lifetime.getAttribute('aria-invalid')).toBe('true');
  await checkScreen('client-error');
  await edit.getByRole('button', { name: 'Discard changes' }).click();
  expect(await lifetime.inputValue()).toBe('');
});

test("a resource server's delegation settings are edited on its page; zod's raw text reads as a sentence", async () => {
  await open('Resource servers');
  await page.locator(`tr[data-rs="${h.tenant.resource}"]`).getByRole('link').click();
  const form = page.getByRole('form', { name: /^Edit resource server / });
  await form.waitFor();
  const lifetime = form.getByLabel('Access token lifetime (seconds)');
  // The limits of the OpenAPI document are on the input before any round trip.
  expect([await lifetime.getAttribute('min'), await lifetime.getAttribute('max')]).toEqual(['5', '86400']);
  await lifetime.fill('1200');
  await form.getByLabel('Require NHE delegation tokens (no ordinary tokens)').check();
  await form.getByLabel('llm-assistive').check();
  await form.getByRole('button', { name: /^Save resource server / }).click();
  await form
    .getByText(/^Saved resource server .*: token lifetime, requires delegation tokens, allowed NHE types\.$/)
    .waitFor();
  const list = await api('GET', `/tenants/${h.tenant.tenantId}/resource-servers`);
  const rs = (list.body.items as Array<Record<string, unknown>>).find((r) => r.identifier === h.tenant.resource);
  expect(rs).toMatchObject({
    config: {
      accessToken: { lifetime: 1200 },
      nhe: { acceptDelegationTokens: true, requireDelegationTokens: true, allowedNheTypes: ['llm-assistive'] },
    },
  });
  await checkScreen('resource-server');

  // A description longer than the API takes (200 characters): zod says "Too big: expected string to have <=200
  // characters"; the field says it in words.
  const scope = (rs!.scopes as string[])[0]!;
  await form.getByLabel(/^Scope descriptions/).fill(JSON.stringify({ [scope]: 'x'.repeat(201) }));
  await form.getByRole('button', { name: /^Save resource server / }).click();
  const error = form.locator('.field-error[data-field="body.scopeDescriptions"]');
  await error.waitFor();
  expect(await error.textContent()).toBe('Must be at most 200 characters.');
  await form.getByRole('button', { name: 'Discard changes' }).click();
});

/** An authorization request of the seeded client (PKCE S256). */
function authorizeUrl(extra: Record<string, string> = {}): string {
  const url = new URL(`${base}/auth/${h.tenant.tenantId}/authorize`);
  url.search = new URLSearchParams({
    client_id: h.tenant.client.clientId,
    response_type: 'code',
    redirect_uri: h.tenant.client.redirectUri,
    scope: 'openid',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
  return url.toString();
}

test("a user's roles and status, a reset link the person uses, and ending the person's session", async () => {
  const { user } = h.tenant;
  await open('Users');
  await page.getByLabel('Username starts with').fill(user.username);
  await page.getByLabel('Status', { exact: true }).selectOption('true');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator(`tr[data-user="${user.username}"]`).getByRole('link', { name: user.username }).click();
  const detail = page.locator('article.detail');
  await detail.getByRole('heading', { name: `User ${user.username}` }).waitFor();

  // A role, added and read back.
  await detail.getByLabel('Role to add').selectOption(roleId);
  await detail.getByRole('button', { name: 'Add role' }).click();
  await detail.getByText(`Added the role detail-reader (${h.tenant.resource}) to user ${user.username}.`).waitFor();
  const path = `/tenants/${h.tenant.tenantId}/users/${user.id}`;
  expect((await api('GET', path)).body.roleIds).toContain(roleId);

  // Disable (confirmed in a dialog naming the user), read back, enable again.
  await detail.getByRole('button', { name: `Disable ${user.username}` }).click();
  const dialog = page.getByRole('dialog', { name: `Disable the user ${user.username}?` });
  await dialog.waitFor();
  await checkScreen('user-confirm-disable');
  await dialog.getByRole('button', { name: `Really disable ${user.username}` }).click();
  await detail.getByText(`Disabled ${user.username}: they cannot sign in.`).waitFor();
  expect(await detail.locator('.status-row .badge').textContent()).toBe('Disabled');
  expect((await api('GET', path)).body.enabled).toBe(false);
  await detail.getByRole('button', { name: `Enable ${user.username}` }).click();
  await detail.getByText(`Enabled ${user.username}: they can sign in again.`).waitFor();
  expect((await api('GET', path)).body.enabled).toBe(true);

  // A one-time reset link, shown once.
  await detail.getByRole('button', { name: 'Make a reset link' }).click();
  const link = await detail.getByLabel('Reset link').inputValue();
  expect(link).toMatch(new RegExp(`/auth/${h.tenant.tenantId}/account/password-reset\\?token=`));
  await checkScreen('user');

  // The person's own browser: opens the link, chooses a password, signs in with it.
  const person = await browser.newContext({ viewport: { width: 390, height: 844 } });
  await person.route('http://127.0.0.1:8400/**', (r) =>
    r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>App</title><h1>App</h1>' }),
  );
  const them = await person.newPage();
  await them.goto(link);
  await them.getByLabel(/^New password/).fill(NEW_PASSWORD);
  await them.getByLabel('The same again').fill(NEW_PASSWORD);
  await them.getByRole('button', { name: 'Set the new password' }).click();
  await them.getByRole('heading', { name: 'Your password was changed' }).waitFor();
  await them.goto(authorizeUrl());
  await them.getByLabel('Username').fill(user.username);
  await them.getByLabel('Password').fill(NEW_PASSWORD);
  await them.getByRole('button', { name: 'Sign in' }).click();
  await them.waitForURL((u) => u.href.startsWith(h.tenant.client.redirectUri));
  expect(new URL(them.url()).searchParams.get('code')).toBeTruthy();

  // The administrator sees that session and ends it.
  const sessions = detail.getByRole('region', { name: `Sessions of ${user.username}` });
  await detail.getByRole('button', { name: 'Refresh sessions' }).click();
  await sessions.locator('tr[data-session]').first().waitFor();
  expect(await sessions.locator('tr[data-session]').count()).toBe(1);
  expect(await sessions.locator('tr[data-session]').textContent()).toContain(h.tenant.client.clientId);
  await sessions.getByRole('button', { name: /^End session signed in/ }).click();
  await page.getByRole('dialog', { name: `End this session of ${user.username}?` }).waitFor();
  await page.getByRole('button', { name: 'Really end the session' }).click();
  await detail.getByText(`Ended a session of ${user.username}.`).waitFor();
  await sessions.getByText(`No live session: ${user.username} is signed out everywhere.`).waitFor();
  await checkScreen('user-sessions');

  // The person's browser is signed out: prompt=none cannot reuse a session.
  // (The redirect is read from the request the browser makes to the application, whatever that answers.)
  const landing = them.waitForRequest((r) => r.url().startsWith(h.tenant.client.redirectUri));
  await them.goto(authorizeUrl({ prompt: 'none' })).catch(() => undefined);
  expect(new URL((await landing).url()).searchParams.get('error')).toBe('login_required');
  await person.close();
  expect(cspViolations).toEqual([]);
});

test('groups and roles open on their pages: a member added, permissions edited and read back', async () => {
  await open('Groups');
  const create = page.getByRole('form', { name: 'Create a group' });
  await create.getByLabel('Group name').fill('detail-operators');
  await create.getByRole('button', { name: 'Create group' }).click();
  // The create clears the form and opens the new group.
  const detail = page.locator('article.detail');
  await detail.getByRole('heading', { name: 'Group detail-operators' }).waitFor();
  expect(await create.getByLabel('Group name').inputValue()).toBe('');
  await detail.getByLabel('User to add').selectOption({ label: h.tenant.user.username });
  await detail.getByRole('button', { name: 'Add member' }).click();
  await detail.locator(`li[data-member="${h.tenant.user.username}"]`).waitFor();
  const user = await api('GET', `/tenants/${h.tenant.tenantId}/users/${h.tenant.user.id}`);
  expect((user.body.groupIds as string[]).length).toBe(1);
  await checkScreen('group');

  // Paging with the API's cursors, and sorting within the page.
  for (let i = 0; i < 11; i++) {
    const g = await api('POST', `/tenants/${h.tenant.tenantId}/groups`, {
      name: `paged-${String(i).padStart(2, '0')}`,
    });
    expect(g.status).toBe(201);
  }
  await page.getByRole('link', { name: '← All groups' }).click();
  await page.getByLabel('Per page').selectOption('10');
  const rows = page.locator('tbody tr[data-group]');
  const pager = page.getByRole('navigation', { name: 'Pages of groups' });
  await pager.getByText('Page 1, 10 shown').waitFor();
  await pager.getByRole('button', { name: 'Next page' }).click();
  await pager.getByText('Page 2, 2 shown').waitFor();
  const second = await rows.allTextContents();
  await pager.getByRole('button', { name: 'Previous page' }).click();
  await pager.getByText('Page 1, 10 shown').waitFor();
  expect(second.some((t) => t.includes('paged-10'))).toBe(true);
  expect((await rows.allTextContents()).some((t) => t.includes('paged-10'))).toBe(false);
  await page.getByRole('button', { name: /^Name/ }).click();
  await page.getByRole('button', { name: /^Name/ }).click();
  expect(await page.getByRole('columnheader', { name: /^Name/ }).getAttribute('aria-sort')).toBe('descending');
  const names = await page
    .locator('tbody tr[data-group]')
    .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-group') ?? ''));
  expect(names).toEqual([...names].sort().reverse());
  await page.getByLabel('Name starts with').fill('paged-1');
  await page.getByRole('button', { name: 'Search' }).click();
  await pager.getByText('Page 1, 1 shown').waitFor();
  await checkScreen('groups-list');

  await open('Roles');
  await page.locator('tr[data-role="detail-reader"]').getByRole('link', { name: 'detail-reader' }).click();
  const form = page.getByRole('form', { name: 'Edit role detail-reader' });
  await form.getByLabel('Permissions (scopes)').fill('orders:read\norders:write');
  await form.getByRole('button', { name: 'Save role detail-reader' }).click();
  await form.getByText('Saved role detail-reader: permissions.', { exact: true }).waitFor();
  expect((await api('GET', `/tenants/${h.tenant.tenantId}/roles/${roleId}`)).body.permissions).toEqual([
    'orders:read',
    'orders:write',
  ]);
  await checkScreen('role');
});
