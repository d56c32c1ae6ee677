/**
 * The user's delegation ledger in real headless Chromium through the dev router, every service its own
 * process: the demo user opens /auth/{t}/account/agents, signs in on the tenant's login page, sees the agent and the
 * live token an exchange (through the API) gave it, revokes it (introspection then refuses the token), blocks it
 * (the exchange is refused with access_denied naming user-opt-out), and lifts the block from a browser with
 * JavaScript off. Each state is captured at 1280x800 and 390x844 into test-output/browser/ and checked with axe-core
 * (no serious or critical violation) and for CSP violations. The banner prints the page's URL.
 */
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { banner, runtimeNote } from '../../src/dev-banner';
import { launchChromium, newProbedPage, screenshots, seriousA11yViolations } from '../../src/clients/browser';
import { basicAuth } from '../../src/clients/browserless-login';
import { seededUserToken, startHarness, type Harness } from '../../src/harness';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

let h: Harness;
let browser: Browser;
let base: string;
let t: number;
let userToken: string;
let agentToken: string;

const exchange = async (): Promise<{
  status: number;
  body: { access_token?: string; error?: string; error_description?: string };
}> => {
  const res = await fetch(`${base}/auth/${t}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
    },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: userToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: h.tenant.nhe.identifier,
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: h.tenant.resource,
      scope: 'orders:read',
    }),
  });
  return { status: res.status, body: (await res.json()) as never };
};

const active = async (token: string): Promise<boolean> => {
  const res = await fetch(`${base}/auth/${t}/token/introspection`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
    },
    body: new URLSearchParams({ token }),
  });
  return ((await res.json()) as { active: boolean }).active;
};

beforeAll(async () => {
  await startAll([startHarness('browser-ledger').then((v) => (h = v)), launchChromium().then((v) => (browser = v))]);
  base = h.topology.baseUrl;
  t = h.tenant.tenantId;
  userToken = await seededUserToken(h);
  const issued = await exchange();
  expect(issued.status).toBe(200);
  agentToken = issued.body.access_token!;
  // The audit row is written by audit-writer from the stream, asynchronously.
  const jti = String(decodeJwt(agentToken).jti);
  for (let i = 0; i < 40 && !(await h.db.models.TokenAudit.exists({ tenantId: t, jti })); i++)
    await new Promise((r) => setTimeout(r, 250));
});

afterAll(async () => {
  await ifAssigned(browser)?.close();
  await ifAssigned(h)?.stop();
});

async function newContext(options: { javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
}

/** Screenshots at both sizes, then axe: nothing serious or critical. */
async function checkPage(page: Page, name: string): Promise<void> {
  await screenshots(page, name);
  expect(await seriousA11yViolations(page)).toEqual([]);
}

/** Opens the ledger in a fresh context and signs in on the tenant's login page. */
async function openLedger(context: BrowserContext): Promise<{ page: Page; cspViolations: string[] }> {
  const probe = await newProbedPage(context);
  const { page } = probe;
  await page.goto(`${base}/auth/${t}/account/agents`);
  await page.getByLabel('Username').fill(h.tenant.user.username);
  await page.getByLabel('Password').fill(h.tenant.user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/auth/${t}/account/agents`);
  return probe;
}

it('the banner prints the ledger URL, and explains the runtime warning only below Node 22', () => {
  const text = banner({
    baseUrl: base,
    listen: base,
    demo: h.tenant,
    admin: { clientId: 'a', clientSecret: 'b' },
    nodeVersion: '20.20.2',
  });
  expect(text).toContain(`${base}/auth/${t}/account/agents`);
  expect(text).toMatch(/Unsupported runtime" above is expected/);
  expect(runtimeNote('22.21.1')).toEqual([]);
  expect(runtimeNote(undefined)).toEqual([]);
});

it('sign in, see the agent and its live token, revoke it, block it: each page passes axe and has no CSP violation', async () => {
  const context = await newContext();
  try {
    const { page, cspViolations } = await openLedger(context);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Agents acting for you');
    const agent = page.locator(`section[data-nhe="${h.tenant.nhe.identifier}"]`);
    expect(await agent.locator('li[data-jti]').count()).toBe(1);
    expect(await agent.textContent()).toContain('A delegation policy names you');
    expect(await page.locator('#audit li').count()).toBe(1);
    await checkPage(page, 'ledger');

    await agent.getByRole('button', { name: /Revoke its access now/ }).click();
    await page.waitForURL(/done=revoked/);
    expect(await page.getByRole('status').textContent()).toContain('Its access was revoked');
    expect(await agent.locator('li[data-jti]').textContent()).toMatch(/^Revoked/);
    expect(await active(agentToken)).toBe(false);
    await checkPage(page, 'ledger-revoked');

    await agent.getByRole('button', { name: 'Block this agent for me' }).click();
    await page.waitForURL(/done=blocked/);
    expect(await agent.textContent()).toContain('Blocked by you');
    const refused = await exchange();
    expect([refused.status, refused.body.error]).toEqual([400, 'access_denied']);
    expect(refused.body.error_description).toContain('user-opt-out');
    await checkPage(page, 'ledger-blocked');
    expect(cspViolations).toEqual([]);
  } finally {
    await context.close();
  }
});

it('without JavaScript: sign in and lift the block; the agent may act again', async () => {
  const context = await newContext({ javaScriptEnabled: false });
  try {
    const { page } = await openLedger(context);
    await page
      .locator(`section[data-nhe="${h.tenant.nhe.identifier}"]`)
      .getByRole('button', { name: 'Lift the block' })
      .click();
    await page.waitForURL(/done=unblocked/);
    expect(await page.getByRole('status').textContent()).toContain('The block is lifted');
  } finally {
    await context.close();
  }
  // A token issued in the same second as the block counts as revoked by it: the next second.
  await new Promise((r) => setTimeout(r, 1100));
  const again = await exchange();
  expect(again.status).toBe(200);
  expect(await active(again.body.access_token!)).toBe(true);
});
