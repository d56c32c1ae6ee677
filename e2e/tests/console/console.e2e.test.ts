/**
 * The admin console (console/) in Debian's Chromium driven by playwright-core, against the whole topology
 * behind the dev router. A system-tenant administrator signs in with the provider's authorization-code + PKCE flow
 * (the tenant's built-in console client), creates a tenant with NHE delegation, a resource server, a client (its
 * secret shown once), a user with a role, an NHE and a policy, runs the simulator, sees the audit row of a token
 * exchange made through the API and verifies the hash chain, then changes the retention job's schedule and batch
 * size, disables it, runs it now and reads the run's result. A tenant administrator with a few scopes sees only their
 * tenant, sees disabled controls naming the scope, and gets a 403 problem when forcing the call. Every screen is
 * checked with axe (no serious or critical violation) and captured at 1280x800 and 390x844 into
 * test-output/browser/console-*.png.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { repoRoot } from '@idp/testing';
import { launchChromium, newProbedPage, screenshots, seriousA11yViolations } from '../../src/clients/browser';
import { basicAuth, browserlessLogin, clientCredentialsToken } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

jest.setTimeout(240_000);

// Page-side globals of the page.evaluate callbacks (this file is compiled without the DOM library).
declare const sessionStorage: { getItem(key: string): string | null };
declare const document: { activeElement: { textContent: string | null; id: string } | null };

let h: Harness;
let browser: Browser;
let base: string;
let CONSOLE: string;
let systemToken: string;
const ADMIN = { username: 'root-admin', password: 'the console administrator password 1' };
const TENANT_ADMIN = { username: 'tenant-reader', password: 'the tenant administrator password 1' };
const ALICE = { username: 'alice-console', password: 'alice uses the orders api 1' };
const RS = 'https://orders.console.example';
const APP_REDIRECT = 'http://127.0.0.1:8400/callback';

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
  await startAll([startHarness('console').then((v) => (h = v)), launchChromium().then((v) => (browser = v))]);
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
  // A person who administers the platform: a user of the system tenant holding the system-admin role.
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

/** Screenshots at both sizes, then axe: nothing serious or critical. */
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

test('the console is served with its CSP, its config and the console client of the system tenant', async () => {
  const res = await fetch(CONSOLE);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
  expect(await res.text()).toContain('<div id="root">');
  const alias = await fetch(`${base}/_api/auth/admin/console/config.json`);
  expect(alias.status).toBe(200);
  expect(await alias.json()).toEqual({
    systemTenantId: h.topology.systemTenantId,
    clientId: 'admin-console',
    available: true,
  });
  const client = await api('GET', `/tenants/${h.topology.systemTenantId}/clients/admin-console`, systemToken);
  expect(client.status).toBe(200);
  expect(client.body).toMatchObject({
    tokenEndpointAuthMethod: 'none',
    hasSecret: false,
    firstParty: true,
    redirectUris: [CONSOLE, `${base}/_api/auth/admin/console/`],
  });
});

let tenantId = 0;

test('a system administrator builds a delegating tenant in the console, simulates, audits, verifies and runs the retention job', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page, cspViolations } = await newProbedPage(context);
  await signIn(page, h.topology.systemTenantId, ADMIN);
  // The Jobs dialog comes first for a system administrator.
  await page.getByRole('heading', { level: 1, name: 'Jobs' }).waitFor();
  await checkScreen(page, 'jobs');

  // Tenant with NHE delegation; a field the API refuses is shown next to the field.
  await open(page, 'Tenant & settings');
  const create = form(page, 'Create a tenant');
  await create.getByLabel('Tenant name').fill('console-made');
  await create.getByLabel('NHE delegation enabled').check();
  await create.getByLabel('Default max token lifetime (seconds)').fill('600');
  await create.getByLabel('Hard max token lifetime (seconds)').fill('300');
  await create.getByRole('button', { name: 'Create tenant' }).click();
  await create.locator('.field-error[data-field="body.settings.nhe.defaultMaxTokenLifetime"]').waitFor();
  expect(await create.locator('.field-error').first().textContent()).toContain(
    'Must not exceed the hard maximum token lifetime (300).',
  );
  await checkScreen(page, 'tenants-problem');
  await create.getByLabel('Default max token lifetime (seconds)').fill('300');
  await create.getByLabel('Hard max token lifetime (seconds)').fill('900');
  await create.getByRole('button', { name: 'Create tenant' }).click();
  const created = page.getByTestId('created-tenant');
  await created.filter({ hasText: 'Created tenant' }).waitFor();
  tenantId = Number(await created.getAttribute('data-tenant-id'));
  expect(tenantId).toBeGreaterThan(0);
  // Switch tenant.
  await page.getByLabel('Tenant', { exact: true }).selectOption(String(tenantId));
  await page.getByRole('heading', { level: 2, name: `Tenant ${tenantId}` }).waitFor();
  await checkScreen(page, 'tenants');

  await open(page, 'Resource servers');
  const rs = form(page, 'Create a resource server');
  await rs.getByLabel('Name').fill('Orders API');
  await rs.getByLabel(/^Identifier/).fill(RS);
  await rs.getByLabel('Scopes (space separated)').fill('orders:read orders:write');
  await rs.getByRole('button', { name: 'Create resource server' }).click();
  await page.locator(`tr[data-rs="${RS}"]`).waitFor();
  await checkScreen(page, 'resource-servers');

  await open(page, 'Clients');
  const cl = form(page, 'Create a client');
  await cl.getByLabel('Name').fill('Agent host');
  await cl.getByLabel('Client id (empty: generated)').fill('agent-host');
  await cl.getByLabel('client_credentials').uncheck();
  await cl.getByLabel('authorization_code').check();
  await cl.getByLabel('urn:ietf:params:oauth:grant-type:token-exchange').check();
  await cl.getByLabel('Redirect URIs (space separated)').fill(APP_REDIRECT);
  await cl.getByLabel('First party (no consent page)').check();
  await cl.getByLabel(/^NHE delegation enabled/).check();
  await cl.getByRole('button', { name: 'Create client' }).click();
  const secretBox = page.getByLabel('Client secret of agent-host');
  await secretBox.waitFor();
  const clientSecret = await secretBox.inputValue();
  expect(clientSecret.length).toBeGreaterThanOrEqual(32);
  await checkScreen(page, 'clients');

  await open(page, 'Roles');
  const ro = form(page, 'Create a role');
  await ro.getByLabel('Role name').fill('orders-reader');
  await ro.getByLabel('Resource server').selectOption(RS);
  await ro.getByLabel('Permissions (space separated scopes)').fill('orders:read');
  await ro.getByRole('button', { name: 'Create role' }).click();
  await page.locator('tr[data-role="orders-reader"]').waitFor();
  await checkScreen(page, 'roles');

  await open(page, 'Users');
  const us = form(page, 'Create a user');
  await us.getByLabel('Username').fill(ALICE.username);
  await us.getByLabel('Password').fill(ALICE.password);
  await us.getByRole('button', { name: 'Create user' }).click();
  await page.locator(`tr[data-user="${ALICE.username}"]`).waitFor();
  const as = form(page, 'Assign a role');
  await as.getByLabel('User').selectOption({ label: ALICE.username });
  await as.getByLabel('Role').selectOption({ label: `orders-reader (${RS})` });
  await as.getByRole('button', { name: 'Assign role' }).click();
  await page.locator(`tr[data-user="${ALICE.username}"]`).filter({ hasText: 'orders-reader' }).waitFor();
  await page.getByRole('button', { name: `Enrol TOTP for ${ALICE.username}` }).click();
  await page.getByRole('img', { name: `QR code of the TOTP secret of ${ALICE.username}` }).waitFor();
  await checkScreen(page, 'users');
  // TOTP is on for alice now; the exchange below signs her in without a browser, so it is reset through the API.
  const aliceId = (await page.locator(`tr[data-user="${ALICE.username}"] code`).textContent())!;
  expect((await api('DELETE', `/tenants/${tenantId}/users/${aliceId}/totp`, systemToken)).status).toBe(204);

  await open(page, 'Groups');
  await form(page, 'Create a group').getByLabel('Group name').fill('operators');
  await form(page, 'Create a group').getByRole('button', { name: 'Create group' }).click();
  await page.getByText('operators', { exact: false }).first().waitFor();
  await checkScreen(page, 'groups');

  await open(page, 'NHE registrations');
  await page.getByTestId('nhe-count').filter({ hasText: '0 of 50' }).waitFor();
  const nf = form(page, 'Register an NHE');
  await nf.getByLabel('Identifier').fill('orders-assistant');
  await nf.getByLabel('Operator').fill('Console Operations');
  await nf.getByLabel('Allowed scopes (space separated)').fill('orders:read orders:write');
  await nf.getByRole('button', { name: 'Register NHE' }).click();
  await page.getByTestId('nhe-count').filter({ hasText: '1 of 50' }).waitFor();
  const pf = form(page, 'Create a delegation policy');
  await pf.getByLabel('On behalf of').selectOption({ label: `user ${ALICE.username}` });
  await pf.getByLabel('Allowed scopes (space separated)').fill('orders:read orders:write');
  await pf.getByRole('button', { name: 'Create policy' }).click();
  await page.getByTestId('policies').filter({ hasText: ALICE.username }).waitFor();
  await checkScreen(page, 'nhes');

  await open(page, 'Delegation simulator');
  const sim = form(page, 'Simulate a delegation');
  await sim.getByLabel('NHE').selectOption({ label: 'orders-assistant' });
  await sim.getByLabel('On behalf of user').selectOption({ label: ALICE.username });
  await sim.getByLabel('Client id (the exchanging client)').fill('agent-host');
  await sim.getByLabel('Resource (audience)').fill(RS);
  await sim.getByLabel('Requested scope (space separated)').fill('orders:read orders:write');
  await sim.getByRole('button', { name: 'Run simulation' }).click();
  const decision = page.locator('.decision');
  await decision.waitFor();
  expect(await decision.getAttribute('data-outcome')).toBe('granted');
  // alice holds orders:read only: the write scope is removed by a named layer.
  expect(await decision.locator('.layer.narrowed').first().textContent()).toContain('orders:write');
  expect(await decision.locator('.layer.granted').textContent()).toContain('orders:read');
  await checkScreen(page, 'simulator');
  // A client without NHE delegation (the built-in console client): refused, the refusing gate named.
  await sim.getByLabel('Client id (the exchanging client)').fill('admin-console');
  await sim.getByRole('button', { name: 'Run simulation' }).click();
  await page.locator('.decision[data-outcome="denied"]').waitFor();
  const refused = page.locator('.decision .layer.refused');
  expect(await refused.getAttribute('data-layer')).toMatch(/\S/);
  expect(await refused.textContent()).toMatch(/^Refused by \S+/);
  await checkScreen(page, 'simulator-denied');

  // A token exchange through the API by the client made above, for alice.
  const user = await browserlessLogin({
    baseUrl: base,
    tenantId,
    clientId: 'agent-host',
    clientSecret,
    redirectUri: APP_REDIRECT,
    username: ALICE.username,
    password: ALICE.password,
    resource: RS,
    scope: 'openid orders:read',
  });
  const ex = await fetch(`${base}/auth/${tenantId}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth('agent-host', clientSecret),
    },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: user.access_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: 'orders-assistant',
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: RS,
      scope: 'orders:read',
    }),
  });
  expect(ex.status).toBe(200);
  const jti = JSON.parse(
    Buffer.from(((await ex.json()) as { access_token: string }).access_token.split('.')[1]!, 'base64url').toString(),
  ).jti as string;

  await open(page, 'Token audit');
  // The audit writer is asynchronous: refresh until the row is there.
  const row = page.locator(`tr[data-jti="${jti}"]`);
  for (let i = 0; i < 40 && (await row.count()) === 0; i++) {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.waitForTimeout(250);
  }
  await row.waitFor();
  await form(page, 'Filter the token audit').getByLabel('NHE identifier').fill('orders-assistant');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await row.waitFor();
  await page.getByRole('button', { name: 'Verify hash chain' }).click();
  const chain = page.getByTestId('chain');
  await chain.waitFor();
  expect(await chain.getAttribute('data-valid')).toBe('true');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const csv = readFileSync((await download.path())!, 'utf8');
  expect(csv.split('\r\n')[0]).toBe(
    'issuedAt,jti,userId,nheIdentifier,clientId,resourceServer,scopes,ttl,sourceIp,actorAuthentication',
  );
  expect(csv).toContain(jti);
  await checkScreen(page, 'audit');

  // Rotation: the new secret is shown once; the old one no longer authenticates the client.
  await open(page, 'Clients');
  await page.getByRole('button', { name: 'Rotate secret of agent-host' }).click();
  const rotated = page.getByLabel('Client secret of agent-host');
  await rotated.waitFor();
  const newSecret = await rotated.inputValue();
  expect(newSecret).not.toBe(clientSecret);
  const tokenWith = (secret: string) =>
    fetch(`${base}/auth/${tenantId}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth('agent-host', secret) },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'x',
        redirect_uri: APP_REDIRECT,
        code_verifier: 'x'.repeat(43),
      }),
    }).then(async (r) => ((await r.json()) as { error: string }).error);
  expect(await tokenWith(clientSecret)).toBe('invalid_client');
  expect(await tokenWith(newSecret)).toBe('invalid_grant');

  await open(page, 'Signing keys');
  await page.getByRole('button', { name: 'Rotate ES256 key' }).click();
  await page.getByRole('button', { name: 'Really rotate the ES256 key' }).click();
  await page.getByText(/New ES256 key .* is active/).waitFor();
  await checkScreen(page, 'keys');

  // The Jobs dialog: schedule, batch size, disabled; the CronJob after the change; run now and its result.
  await open(page, 'Jobs');
  const job = page.locator('article[data-job="nhe-audit-retention"]');
  await job.getByLabel('Schedule (cron, UTC)').fill('not a cron');
  await job.getByRole('button', { name: 'Save job' }).click();
  await job.locator('.field-error[data-field="body.schedule"]').waitFor();
  await job.getByLabel('Schedule (cron, UTC)').fill('15 4 * * 1');
  await job.getByLabel('Batch size (customOptions.batchSize)').fill('250');
  await job.getByLabel('Enabled').uncheck();
  await job.getByRole('button', { name: 'Save job' }).click();
  await job.getByText('Saved job nhe-audit-retention: schedule, enabled, batch size.').waitFor();
  const yaml = (await job.getByTestId('cronjob').textContent())!;
  expect(yaml).toContain('schedule: "15 4 * * 1"');
  expect(yaml).toContain('suspend: true');
  expect(yaml).toContain('batchSize 250');
  expect(await job.getByTestId('next-run').textContent()).toBe('never (disabled)');
  const stored = await api('GET', '/jobs/nhe-audit-retention', systemToken);
  expect(stored.body).toMatchObject({ schedule: '15 4 * * 1', enabled: false, customOptions: { batchSize: 250 } });
  await job.getByRole('button', { name: 'Run now' }).click();
  await page.getByRole('button', { name: 'Really run it now' }).click();
  await job
    .getByTestId('run-progress')
    .filter({ hasText: /Run finished: succeeded, \d+ rows deleted/ })
    .waitFor({ timeout: 60_000 });
  await job.locator('tr[data-status="succeeded"]').first().waitFor();
  expect(await job.locator('tr[data-status="succeeded"]').first().textContent()).toContain('manual');
  await checkScreen(page, 'jobs-after-run');

  // Disabling an NHE, and a delete with its confirmation step.
  await open(page, 'NHE registrations');
  await page.getByRole('button', { name: 'Disable orders-assistant' }).click();
  await page.locator('tr[data-nhe="orders-assistant"] .badge[data-status="off"]').waitFor();
  await page.getByRole('button', { name: 'Enable orders-assistant' }).waitFor();
  await open(page, 'Users');
  await page.getByRole('button', { name: `Delete ${ALICE.username}` }).click();
  await checkScreen(page, 'users-confirm-delete');
  await page.getByRole('button', { name: `Really delete ${ALICE.username}` }).click();
  await page.locator(`tr[data-user="${ALICE.username}"]`).waitFor({ state: 'detached' });
  expect((await api('GET', `/tenants/${tenantId}/users/${aliceId}`, systemToken)).status).toBe(404);
  expect(cspViolations).toEqual([]);
  await context.close();
});

test('a tenant administrator with a few scopes sees only their tenant, disabled controls, and a 403 problem when forcing', async () => {
  expect(tenantId).toBeGreaterThan(0);
  // Their role: reading clients, users and the tenant; nothing else.
  const role = await api('POST', `/tenants/${tenantId}/roles`, systemToken, {
    name: 'reader-admin',
    resourceServer: 'urn:idp:management',
    permissions: ['auth.tenants.list', 'auth.clients.list', 'auth.users.list'],
  });
  expect(role.status).toBe(201);
  const user = await api('POST', `/tenants/${tenantId}/users`, systemToken, {
    username: TENANT_ADMIN.username,
    password: TENANT_ADMIN.password,
  });
  expect(
    (await api('PUT', `/tenants/${tenantId}/users/${String(user.body.id)}/roles/${String(role.body.id)}`, systemToken))
      .status,
  ).toBe(204);

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page } = await newProbedPage(context);
  await signIn(page, tenantId, TENANT_ADMIN);
  // No tenant switch and no Jobs (system-tenant administrators only).
  expect(await page.locator('#tenant-switch').count()).toBe(0);
  expect(await page.locator('.tenant-fixed').getAttribute('data-tenant')).toBe(String(tenantId));
  expect(await page.getByRole('link', { name: 'Jobs', exact: true }).count()).toBe(0);
  await page.getByRole('heading', { level: 1, name: 'Tenant & settings' }).waitFor();
  await open(page, 'Clients');
  await page.locator('tr[data-client="agent-host"]').waitFor();
  const createButton = form(page, 'Create a client').getByRole('button', { name: 'Create client' });
  expect(await createButton.isDisabled()).toBe(true);
  expect(await form(page, 'Create a client').locator('.needs-scope').textContent()).toBe(
    'needs scope auth.clients.create',
  );
  expect(await page.getByRole('button', { name: 'Rotate secret of agent-host' }).isDisabled()).toBe(true);
  expect(await page.getByRole('button', { name: 'Delete agent-host' }).isDisabled()).toBe(true);
  expect(await page.locator('tr[data-client="agent-host"] .needs-scope').allTextContents()).toEqual([
    'needs scope auth.clients.update',
    'needs scope auth.clients.delete',
  ]);
  await checkScreen(page, 'clients-scope-limited');

  const forced = await page.evaluate(
    async ({ url, other }) => {
      const token = (JSON.parse(sessionStorage.getItem('idp-console-session') ?? '{}') as { accessToken: string })
        .accessToken;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const create = await fetch(`${url}/clients`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'forced', grantTypes: ['client_credentials'] }),
      });
      const elsewhere = await fetch(other, { headers });
      return {
        status: create.status,
        type: create.headers.get('content-type'),
        body: await create.json(),
        otherStatus: elsewhere.status,
      };
    },
    { url: `${base}/auth/admin/tenants/${tenantId}`, other: `${base}/auth/admin/tenants/${h.tenant.tenantId}/clients` },
  );
  expect(forced.status).toBe(403);
  expect(forced.type).toContain('application/problem+json');
  expect(forced.body).toMatchObject({ status: 403, required_scope: 'auth.clients.create' });
  // Another tenant does not exist for them (404, so existence does not leak).
  expect(forced.otherStatus).toBe(404);
  await context.close();
});

test('under the /_api alias the console signs in through the alias and calls the API there', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const calls: string[] = [];
  page.on('request', (r) => calls.push(new URL(r.url()).pathname));
  await page.goto(`${base}/_api/auth/admin/console/`);
  await page.getByLabel('Tenant id').fill(String(h.topology.systemTenantId));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('article[data-job="nhe-audit-retention"]').waitFor({ timeout: 20_000 });
  expect(new URL(page.url()).pathname).toBe('/_api/auth/admin/console/');
  expect(calls).toContain(`/_api/auth/${h.topology.systemTenantId}/oidc/token`);
  expect(calls).toContain('/_api/auth/admin/jobs');
  await context.close();
});

test('keyboard only: skip link, navigation and a form', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto(CONSOLE);
  await page.getByLabel('Tenant id').focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(String(h.topology.systemTenantId));
  await page.keyboard.press('Enter');
  await page.getByLabel('Username').waitFor();
  await page.keyboard.type(ADMIN.username);
  await page.keyboard.press('Tab');
  await page.keyboard.type(ADMIN.password);
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 20_000 });
  // The first Tab reaches the skip link; then the navigation, reached and followed with the keyboard.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    if ((await page.evaluate(() => document.activeElement?.textContent)) === 'Signing keys') break;
  }
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Signing keys' }).waitFor();
  // The heading takes focus on a screen change, so a screen reader announces it.
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('screen-heading');
  await context.close();
});
