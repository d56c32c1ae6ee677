/**
 * The console's tenant and NHE screens (the list + detail pattern of console/src/resource-ui.tsx) in Debian's
 * Chromium against the whole topology. A system administrator
 * - pages through 120 NHE registrations seeded through the API (cursor paging, 25 a page) and finds one with the
 *   identifier-prefix search; on a phone the list says it scrolls sideways;
 * - edits that NHE's delegation policy in place (scopes and lifetime, read back through the API);
 * - edits tenant settings (audit retention, registration mode; read back through the API) and is shown an initial
 *   access token once;
 * - deletes a tenant only after typing its name;
 * and on the signing keys screen trusts a workload issuer, disables it on its page (read back) and deletes it.
 * Every screen touched (tenants, NHE registrations, signing keys and workload issuers, jobs, upstream providers; and
 * clients, users and token audit for the documentation) is checked with axe (no serious or critical violation) and
 * captured at 1280x800 and 390x844 (test-output/browser/screen-*.png); a phone never scrolls the page sideways (tables
 * scroll inside, with a cue). doc-console-*.png are the documentation's images (docs/images/console-*.png).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { repoRoot } from '@idp/testing';
import {
  launchChromium,
  newProbedPage,
  outputDir,
  screenshots,
  seriousA11yViolations,
} from '../../src/clients/browser';
import { clientCredentialsToken } from '../../src/clients/browserless-login';
import { postNheExchange, seededUserToken, startHarness, type Harness } from '../../src/harness';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

jest.setTimeout(120_000);

let h: Harness;
let browser: Browser;
let base: string;
let systemToken: string;
let admin: BrowserContext;
let page: Page;
let cspViolations: string[];
let tenantId = 0;
let doomedId = 0;
let patId = '';
let policyNheId = '';
let policyId = '';
const ADMIN = { username: 'screens-admin', password: 'the screens administrator password 1' };
const NHE_COUNT = 120;
const ident = (i: number) => `agent-${String(i).padStart(3, '0')}`;

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
  await startAll([startHarness('console-screens').then((v) => (h = v)), launchChromium().then((v) => (browser = v))]);
  base = h.topology.baseUrl;
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

  // A tenant with room for the 120 registrations, and an empty one to delete.
  const tenant = await api('POST', '/tenants', {
    name: 'screens-tenant',
    settings: { nhe: { enabled: true, maxNhePerTenant: 200 } },
  });
  expect(tenant.status).toBe(201);
  tenantId = Number(tenant.body.id);
  const doomed = await api('POST', '/tenants', { name: 'doomed-tenant' });
  expect(doomed.status).toBe(201);
  doomedId = Number(doomed.body.id);
  const pat = await api('POST', `/tenants/${tenantId}/users`, {
    username: 'pat',
    password: 'pat the delegating user 1',
  });
  expect(pat.status).toBe(201);
  patId = String(pat.body.id);
  // Seeded in small concurrent batches (each create claims a quota slot).
  for (let i = 0; i < NHE_COUNT; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, NHE_COUNT - i) }, (_, k) =>
        api('POST', `/tenants/${tenantId}/non-human-entities`, {
          identifier: ident(i + k),
          type: 'llm-assistive',
          operator: 'Screens Ops',
          allowedScopes: ['orders:read', 'orders:write'],
        }),
      ),
    );
    expect(batch.map((r) => r.status)).toEqual(batch.map(() => 201));
    if (i === 70) policyNheId = String(batch[7]!.body.id);
  }
  const policy = await api('POST', `/tenants/${tenantId}/non-human-entities/${policyNheId}/delegation-policies`, {
    target: { type: 'user', id: patId },
    allowedScopes: ['orders:read', 'orders:write'],
  });
  expect(policy.status).toBe(201);
  policyId = String(policy.body.id);

  admin = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  ({ page, cspViolations } = await newProbedPage(admin));
  await page.goto(`${base}/auth/admin/console/`);
  await page.getByLabel('Tenant id').fill(String(sys));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 20_000 });
  await page.getByLabel('Tenant', { exact: true }).selectOption(String(tenantId));
}, 180_000);

afterAll(async () => {
  await ifAssigned(admin)?.close();
  await ifAssigned(browser)?.close();
  await ifAssigned(h)?.stop();
});

async function checkScreen(name: string): Promise<void> {
  await screenshots(page, `screen-${name}`);
  expect(await seriousA11yViolations(page)).toEqual([]);
}

/** A desktop-width PNG of what the screen shows first, for the documentation (docs/images/console-*.png). */
async function docImage(name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(outputDir('browser'), `doc-console-${name}.png`), fullPage: false });
}

/** Elements that stick out of a phone's width (the page itself must not scroll sideways; tables scroll inside). */
function widerThanPhone(): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      if (el.parentElement?.closest('.table-wrap')) continue;
      const r = el.getBoundingClientRect();
      if (r.right > document.documentElement.clientWidth + 1 && r.width > 0)
        out.push(`${el.tagName.toLowerCase()}.${el.className} ${Math.round(r.right)}`);
    }
    return out.slice(0, 12);
  });
}

async function open(title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: title, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
}

const rowIdentifiers = () => page.locator('tr[data-nhe]').evaluateAll((rows) => rows.map((r) => r.dataset.nhe ?? ''));

test('120 NHE registrations are paged through, one is found by its identifier prefix, and its policy is edited', async () => {
  await open('NHE registrations');
  await page
    .getByTestId('nhe-count')
    .filter({ hasText: `${NHE_COUNT} of 200` })
    .waitFor();
  const pager = page.getByRole('navigation', { name: 'Pages of nhe registrations' });
  const seen = new Set<string>();
  for (let n = 1; n <= 5; n++) {
    await pager.getByText(`Page ${n}, ${n < 5 ? 25 : 20} shown`).waitFor();
    if (n === 1) await docImage('nhes');
    for (const id of await rowIdentifiers()) seen.add(id);
    if (n < 5) await pager.getByRole('button', { name: 'Next page' }).click();
  }
  expect(seen.size).toBe(NHE_COUNT);
  expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
  await checkScreen('nhes');
  // On a phone the seven columns do not fit: the list says so rather than hiding them.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId('scroll-cue').waitFor();
  expect(await widerThanPhone()).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.getByLabel('Identifier starts with').fill('agent-077');
  await page.getByRole('search', { name: 'Search nhe registrations' }).getByRole('button', { name: 'Search' }).click();
  await pager.getByText('Page 1, 1 shown').waitFor();
  expect(await rowIdentifiers()).toEqual(['agent-077']);
  await page.locator('tr[data-nhe="agent-077"]').getByRole('link', { name: 'agent-077' }).click();
  await page.getByRole('heading', { level: 2, name: 'NHE agent-077' }).waitFor();

  const policy = page.getByRole('form', { name: 'Policy for user pat' });
  await policy.getByLabel('Allowed scopes for user pat').fill('orders:read');
  await policy.getByLabel('Max token lifetime for user pat (seconds; empty: none)').fill('120');
  await policy.getByRole('button', { name: 'Save policy for user pat' }).click();
  await policy
    .getByRole('status')
    .filter({ hasText: 'Saved the policy for user pat: allowed scopes, max token lifetime.' })
    .waitFor();
  const stored = await api(
    'GET',
    `/tenants/${tenantId}/non-human-entities/${policyNheId}/delegation-policies/${policyId}`,
  );
  expect(stored.body).toMatchObject({ allowedScopes: ['orders:read'], maxTokenLifetime: 120 });

  // Fields of the registration itself: a PATCH of what changed, read back through the API.
  const edit = page.getByRole('form', { name: 'Edit NHE agent-077' });
  await edit.getByLabel('Max token lifetime (seconds)').fill('899');
  await edit.getByLabel('Operator').fill('Screens Operations');
  await edit.getByRole('button', { name: 'Save NHE agent-077' }).click();
  await edit.getByRole('status').filter({ hasText: 'Saved NHE agent-077: operator, max token lifetime.' }).waitFor();
  const nhe = await api('GET', `/tenants/${tenantId}/non-human-entities/${policyNheId}`);
  expect(nhe.body).toMatchObject({ maxTokenLifetime: 899, operator: 'Screens Operations' });
  await checkScreen('nhe-detail');
});

test('tenant settings are edited and read back; an initial access token is shown once', async () => {
  await open('Tenant & settings');
  const settings = page.getByRole('form', { name: 'Tenant settings' });
  await settings.getByLabel('Audit retention (days)').fill('30');
  await settings.getByLabel('Registration mode').selectOption('initial-access-token');
  await settings.getByRole('button', { name: 'Save tenant screens-tenant' }).click();
  await settings
    .getByRole('status')
    .filter({ hasText: 'Saved tenant screens-tenant: audit retention, registration mode.' })
    .waitFor();
  const stored = await api('GET', `/tenants/${tenantId}`);
  const st = stored.body.settings as { nhe: { auditRetentionDays: number }; registration: { mode: string } };
  expect(st.nhe.auditRetentionDays).toBe(30);
  expect(st.registration.mode).toBe('initial-access-token');

  const issue = page.getByRole('form', { name: 'Issue an initial access token' });
  await issue.getByLabel('Description').fill('for the orders team');
  await issue.getByRole('button', { name: 'Issue an initial access token' }).click();
  const shown = page.getByTestId('issued-initial-access-token');
  await shown.waitFor();
  expect((await shown.getByLabel('Initial access token').inputValue()).length).toBeGreaterThan(30);
  await page.getByTestId('initial-access-tokens').filter({ hasText: 'for the orders team: used 0 of 1' }).waitFor();
  await checkScreen('tenants');
  await docImage('tenants');
});

test('a tenant is disabled only after its name is typed, shows Disabled, and is enabled again', async () => {
  await open('Tenant & settings');
  await page.getByLabel('Name starts with').fill('doomed');
  await page.getByRole('search', { name: 'Search tenants' }).getByRole('button', { name: 'Search' }).click();
  const row = page.locator(`tr[data-tenant-row="${doomedId}"]`);
  await row.waitFor();
  expect(await row.locator('.badge').first().textContent()).toBe('Enabled');
  await row.getByRole('link', { name: 'doomed-tenant' }).click();
  const detail = page.locator(`article[data-detail-tenant="${doomedId}"]`);
  const status = detail.locator('.status-row');
  await status.getByRole('button', { name: 'Disable tenant' }).click();
  const dialog = page.getByRole('dialog', { name: `Disable the tenant doomed-tenant (${doomedId})?` });
  await dialog.waitFor();
  const really = dialog.getByRole('button', { name: 'Really disable doomed-tenant' });
  expect(await really.isDisabled()).toBe(true);
  await dialog.getByLabel('Type doomed-tenant to confirm').fill('doomed-tenant');
  await checkScreen('tenants-confirm-disable');
  await really.click();
  await status.getByText('Tenant doomed-tenant disabled:').waitFor();
  expect(await status.locator('.badge').textContent()).toBe('Disabled');
  expect((await api('GET', `/tenants/${doomedId}`)).body.enabled).toBe(false);
  // The NHE delegation setting is its own, untouched, and labelled as what it is.
  expect((await api('GET', `/tenants/${doomedId}`)).body.settings).toMatchObject({ nhe: { enabled: false } });
  expect(await detail.locator('p.meta').textContent()).toContain('NHE delegation');
  // Its issuer refuses while disabled.
  // (oidc-core hears of the change over NATS, asynchronously.)
  let discovery = 0;
  for (
    const end = Date.now() + 3000;
    discovery !== 403 && Date.now() < end;
    await new Promise((r) => setTimeout(r, 100))
  )
    discovery = (await fetch(`${base}/auth/${doomedId}/.well-known/openid-configuration`)).status;
  expect(discovery).toBe(403);
  await checkScreen('tenant-disabled');
  await status.getByRole('button', { name: 'Enable tenant' }).click();
  await status.getByText('Tenant doomed-tenant enabled:').waitFor();
  expect(await status.locator('.badge').textContent()).toBe('Enabled');
  expect((await api('GET', `/tenants/${doomedId}`)).body.enabled).toBe(true);
});

test('a tenant is deleted only after its name is typed; the console names what it takes', async () => {
  await open('Tenant & settings');
  await page.getByLabel('Name starts with').fill('doomed');
  await page.getByRole('search', { name: 'Search tenants' }).getByRole('button', { name: 'Search' }).click();
  const row = page.locator(`tr[data-tenant-row="${doomedId}"]`);
  await row.waitFor();
  await row.getByRole('button', { name: 'Delete doomed-tenant' }).click();
  const dialog = page.getByRole('dialog', { name: `Delete the tenant doomed-tenant (${doomedId})?` });
  await dialog.waitFor();
  const really = dialog.getByRole('button', { name: 'Really delete doomed-tenant' });
  expect(await really.isDisabled()).toBe(true);
  await dialog.getByLabel('Type doomed-tenant to confirm').fill('doomed');
  expect(await really.isDisabled()).toBe(true);
  await checkScreen('tenants-confirm-delete');
  await dialog.getByLabel('Type doomed-tenant to confirm').fill('doomed-tenant');
  await really.click();
  await row.waitFor({ state: 'detached' });
  expect((await api('GET', `/tenants/${doomedId}`)).status).toBe(404);
  // The tenant with registrations is refused with what is left named, and stays.
  await page.getByLabel('Name starts with').fill('screens');
  await page.getByRole('search', { name: 'Search tenants' }).getByRole('button', { name: 'Search' }).click();
  const kept = page.locator(`tr[data-tenant-row="${tenantId}"]`);
  await kept.getByRole('button', { name: 'Delete screens-tenant' }).click();
  const refuse = page.getByRole('dialog', { name: `Delete the tenant screens-tenant (${tenantId})?` });
  await refuse.getByLabel('Type screens-tenant to confirm').fill('screens-tenant');
  await refuse.getByRole('button', { name: 'Really delete screens-tenant' }).click();
  // The first five registrations by creation: of the first batch of ten, created concurrently (agent-000..009 in
  // any order).
  await refuse
    .getByRole('alert')
    .filter({ hasText: /NHE registrations: agent-00\d(, agent-00\d){4} and more/ })
    .waitFor();
  await refuse.getByRole('button', { name: 'Cancel' }).click();
  expect((await api('GET', `/tenants/${tenantId}`)).status).toBe(200);
});

test('the main screens pass axe and are captured for the documentation', async () => {
  // Open switches the console to the tenant of the row.
  const seeded = await api('GET', `/tenants/${h.tenant.tenantId}`);
  const seededName = String(seeded.body.name);
  await open('Tenant & settings');
  await page.getByLabel('Name starts with').fill(seededName);
  await page.getByRole('search', { name: 'Search tenants' }).getByRole('button', { name: 'Search' }).click();
  await page
    .locator(`tr[data-tenant-row="${h.tenant.tenantId}"]`)
    .getByRole('button', { name: `Open ${seededName}` })
    .click();
  await page.getByRole('heading', { level: 2, name: `Tenant ${h.tenant.tenantId}` }).waitFor();
  expect(await page.getByLabel('Tenant', { exact: true }).inputValue()).toBe(String(h.tenant.tenantId));
  // A few delegated tokens, so the audit screen has rows (written asynchronously by the audit writer).
  const subject = await seededUserToken(h);
  for (let i = 0; i < 3; i++) expect((await postNheExchange(h, subject)).status).toBe(200);
  for (let t = 0; t < 100; t++) {
    const rows = await api('GET', `/tenants/${h.tenant.tenantId}/non-human-entities/token-audit?limit=10`);
    if (((rows.body.items as unknown[] | undefined)?.length ?? 0) >= 3) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  for (const [title, name] of [
    ['Clients', 'clients'],
    ['Users', 'users'],
    ['Token audit', 'audit'],
    ['Jobs', 'jobs'],
    ['Upstream identity providers', 'upstream-providers'],
    ['Trusted issuers', 'trusted-issuers'],
    ['ID-JAG audiences', 'id-jag-audiences'],
    ['Shared Signals streams', 'ssf-streams'],
    ['Directory provisioning (SCIM)', 'scim'],
  ] as const) {
    await open(title);
    const ready = {
      jobs: 'article[data-job="nhe-audit-retention"]',
      'upstream-providers': 'main table',
      'trusted-issuers': 'main form',
      'id-jag-audiences': 'main form',
      'ssf-streams': 'main table',
      scim: 'main table',
    } as Record<string, string>;
    await page
      .locator(ready[name] ?? 'main tbody tr')
      .first()
      .waitFor();
    await checkScreen(name);
    await docImage(name);
  }

  // Workload issuers (on the signing keys screen): trusted, disabled on their page (read back), then deleted.
  await open('Signing keys');
  const trust = page.getByRole('form', { name: 'Trust a workload issuer' });
  await trust.getByLabel('Issuer (the iss of its JWTs)').fill('https://kubernetes.default.svc');
  await trust.getByLabel('Key set URL (https)').fill('https://k8s.example.com/openid/v1/jwks');
  await trust.getByRole('button', { name: 'Trust workload issuer' }).click();
  const row = page.locator('tr[data-workload-issuer="https://kubernetes.default.svc"]');
  await row.getByRole('button', { name: 'https://kubernetes.default.svc', exact: true }).click();
  const edit = page.getByRole('form', { name: 'Edit workload issuer https://kubernetes.default.svc' });
  await edit.getByLabel('Enabled (a disabled issuer proves nobody)').uncheck();
  await edit.getByRole('button', { name: 'Save workload issuer https://kubernetes.default.svc' }).click();
  await edit
    .getByRole('status')
    .filter({ hasText: 'Saved workload issuer https://kubernetes.default.svc: status.' })
    .waitFor();
  const issuers = await api('GET', `/tenants/${h.tenant.tenantId}/workload-issuers`);
  const stored = (issuers.body.items as Array<{ issuer: string; enabled: boolean }>).find(
    (i) => i.issuer === 'https://kubernetes.default.svc',
  );
  expect(stored?.enabled).toBe(false);
  await row.locator('.badge[data-status="off"]').waitFor();
  await checkScreen('keys');
  await row.getByRole('button', { name: 'Delete https://kubernetes.default.svc' }).click();
  await page.getByRole('button', { name: 'Really stop trusting it' }).click();
  await row.waitFor({ state: 'detached' });
  expect(cspViolations).toEqual([]);
});
