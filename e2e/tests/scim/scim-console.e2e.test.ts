/**
 * The console's SCIM screen in Debian's Chromium (playwright-core) against the whole topology behind the dev router:
 * an administrator sees the tenant's SCIM base URL, creates a SCIM credential (the secret shown once), the directory
 * uses it (the list shows when), the administrator revokes it after a confirmation and the directory is refused; a
 * user the directory provisioned is marked as directory-managed on the users screen with its username read-only.
 * Checked with axe (no serious or critical violation) and captured at 1280x800 and 390x844 into
 * test-output/browser/console-scim*.png.
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
let systemToken: string;
const ADMIN = { username: 'scim-console-admin', password: 'the console administrator password 1' };
const TITLE = 'Directory provisioning (SCIM)';

async function api(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/scim+json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

beforeAll(async () => {
  if (!existsSync(join(repoRoot(), 'console', 'dist', 'index.html')))
    throw new Error('console/dist is missing: build the console first (npm run build -w @idp/console)');
  await startAll([startHarness('scim-console').then((v) => (h = v)), launchChromium().then((v) => (browser = v))]);
  base = h.topology.baseUrl;
  const s = h.topology.secrets;
  const sys = h.topology.systemTenantId;
  systemToken = (
    await clientCredentialsToken(
      base,
      sys,
      s.bootstrapAdminClientId,
      s.bootstrapAdminClientSecret,
      'urn:idp:management',
    )
  ).access_token;
  const user = await api('POST', `/auth/admin/tenants/${sys}/users`, systemToken, ADMIN);
  expect(user.status).toBe(201);
  const roles = await api('GET', `/auth/admin/tenants/${sys}/roles`, systemToken);
  const role = (roles.body.items as Array<{ id: string; name: string }>).find((r) => r.name === 'system-admin')!;
  const put = await api(
    'PUT',
    `/auth/admin/tenants/${sys}/users/${String(user.body.id)}/roles/${role.id}`,
    systemToken,
  );
  expect(put.status).toBe(204);
}, 180_000);

afterAll(async () => {
  await ifAssigned(browser)?.close();
  await ifAssigned(h)?.stop();
});

async function checkScreen(page: Page, name: string): Promise<void> {
  await screenshots(page, `console-${name}`);
  expect(await seriousA11yViolations(page)).toEqual([]);
}

async function open(page: Page, title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: title, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
}

test('SCIM credentials: created with the secret shown once, used by the directory, revoked; directory users marked', async () => {
  const sys = h.topology.systemTenantId;
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page, cspViolations } = await newProbedPage(context);
  await page.goto(`${base}/auth/admin/console/`);
  await page.getByLabel('Tenant id').fill(String(sys));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 20_000 });

  await open(page, TITLE);
  const scimBase = `${base}/auth/${sys}/scim/v2`;
  expect(await page.getByTestId('scim-base-url').textContent()).toBe(scimBase);
  await page.getByLabel('Description (which directory uses it)').fill('Entra ID');
  await page.getByRole('button', { name: 'Create SCIM credential' }).click();
  const secretBox = page.getByTestId('scim-secret').getByRole('textbox', { name: 'SCIM secret' });
  await secretBox.waitFor();
  const secret = await secretBox.inputValue();
  expect(secret).toMatch(/^scim_/);
  await checkScreen(page, 'scim');

  // The directory provisions a person with it.
  const created = await api('POST', `/auth/${sys}/scim/v2/Users`, secret, {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: 'fox.mulder',
    externalId: 'entra-fox',
  });
  expect(created.status).toBe(201);

  await open(page, 'Users');
  const row = page.getByRole('row').filter({ hasText: 'fox.mulder' });
  await row.locator('[data-managed-by="scim"]').waitFor();

  // Revoke: confirmed, then the directory is refused.
  await open(page, TITLE);
  const credRow = page.getByRole('row').filter({ hasText: 'Entra ID' });
  await credRow
    .getByText(/^\d{4}-\d{2}-\d{2}/)
    .first()
    .waitFor();
  const revokeButton = credRow.getByRole('button', { name: /^Revoke / });
  await revokeButton.click();
  await page.getByRole('button', { name: 'Really revoke it' }).click();
  await page.getByText(/^Revoked SCIM credential /).waitFor();
  expect((await api('GET', `/auth/${sys}/scim/v2/Users`, secret)).status).toBe(401);
  await checkScreen(page, 'scim-revoked');
  expect(cspViolations).toEqual([]);
  await context.close();
});
