/**
 * Human approval (OpenID CIBA Core 1.0 with RFC 9396 authorization details) in real headless Chromium, every service
 * its own process behind the dev router: the person opens their ledger page and signs in; the agent's backend
 * (openid-client 6) sends a backchannel authentication request naming the NHE, a binding message and an action; the
 * request appears on the open page without a reload (its own script polls the JSON list under the account area, under
 * the page's CSP: nonce, connect-src 'self'); the person approves, and the agent's poll gets a delegation token with
 * act, agent and authorization_details, whose audit row (written by audit-writer from JetStream) carries the approval.
 * A second request is denied on the page: the agent gets access_denied. Screenshots at 1280x800 and 390x844 into
 * test-output/browser/, axe (nothing serious or critical), no CSP violation. Cost: one harness (every service, NATS,
 * the store) and one Chromium for the file.
 */
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { publishInvalidation, connectNats } from '@idp/events';
import { verifyAuditChain } from '@idp/db';
import { createLogger } from '@idp/logger';
import { createClient } from '@idp/testing';
import { launchChromium, newProbedPage, screenshots, seriousA11yViolations } from '../../src/clients/browser';
import { startHarness, type Harness } from '../../src/harness';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

const CIBA = 'urn:openid:params:grant-type:ciba';
const ACTION = 'urn:idp:agent-action';

let h: Harness;
let browser: Browser;
let base: string;
let t: number;
let rp: oidc.Configuration;

const refund = [
  {
    type: ACTION,
    actions: ['orders.refund'],
    identifier: 'order-8841',
    amount: { value: '50.00', currency: 'EUR' },
    description: 'Refund order 8841 to the card it was paid with',
  },
];

beforeAll(async () => {
  await startAll([startHarness('ciba-approval').then((v) => (h = v)), launchChromium().then((v) => (browser = v))]);
  base = h.topology.baseUrl;
  t = h.tenant.tenantId;
  const m = h.db.models;
  await m.Tenant.updateOne(
    { _id: t },
    {
      $set: {
        'settings.backchannelAuthentication': { enabled: true, requestLifetimeSeconds: 120, pollIntervalSeconds: 1 },
      },
    },
  );
  const nats = await connectNats(h.nats.url, createLogger({ service: 'e2e', level: 'silent' }), 'e2e-ciba');
  await publishInvalidation(nats.nc, { tenantId: t, kind: 'tenant' });
  await nats.close();
  const app = await createClient(m, h.topology.secrets.clientSecretPepper, {
    tenantId: t,
    clientId: 'orders-assistant',
    name: 'Orders Assistant',
    grantTypes: [CIBA],
    delegationEnabled: true,
  });
  await m.Client.updateOne(
    { tenantId: t, clientId: app.clientId },
    { $set: { backchannelTokenDeliveryMode: 'poll', 'config.nhe.allowedNheIdentifiers': [h.tenant.nhe.identifier] } },
  );
  rp = await oidc.discovery(
    new URL(`${base}/auth/${t}`),
    app.clientId,
    app.clientSecret,
    oidc.ClientSecretBasic(app.clientSecret),
    { execute: [oidc.allowInsecureRequests] },
  );
});

afterAll(async () => {
  await ifAssigned(browser)?.close();
  await ifAssigned(h)?.stop();
});

const ask = (binding: string) =>
  oidc.initiateBackchannelAuthentication(rp, {
    scope: 'openid orders:read',
    login_hint: h.tenant.user.username,
    binding_message: binding,
    resource: h.tenant.resource,
    actor_token: h.tenant.nhe.identifier,
    actor_token_type: 'urn:vendor:token-type:nhe-id',
    authorization_details: JSON.stringify(refund),
  });

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

async function checkPage(page: Page, name: string): Promise<void> {
  await screenshots(page, name);
  expect(await seriousA11yViolations(page)).toEqual([]);
}

it('the request appears on the open page without a reload; approving gives the agent a delegation token with authorization_details, audited with the approval', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const { page, cspViolations } = await openLedger(context);
    expect(await page.locator('#pending-none').isVisible()).toBe(true);
    // A marker in the page's own window: a reload would drop it.
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    const started = await ask('Refund 50 EUR? K7Q2');
    const item = page.locator('#pending-list > li');
    await item.waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    const text = (await item.textContent()) ?? '';
    expect(text).toContain('Refund 50 EUR? K7Q2');
    expect(text).toContain('Refund order 8841 to the card it was paid with');
    expect(text).toContain('50.00 EUR');
    expect(text).toContain(h.tenant.nhe.identifier);
    expect(text).toContain('Orders Assistant');
    await checkPage(page, 'ciba-pending');

    await item.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(/request=approved/);
    expect(await page.locator('#request-done').textContent()).toContain('Approved');
    await checkPage(page, 'ciba-approved');

    const tokens = await oidc.pollBackchannelAuthenticationGrant(rp, { ...started, interval: 0.5 });
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({
      gty: CIBA,
      act: { sub: `nhe:${h.tenant.nhe.identifier}` },
      agent: { id: h.tenant.nhe.identifier },
      authorization_details: refund,
      scope: 'orders:read',
    });
    const jti = String(claims.jti);
    let row = null;
    for (let i = 0; i < 40 && !row; i++) {
      row = await h.db.models.TokenAudit.findOne({ tenantId: t, jti }).lean();
      if (!row) await new Promise((r) => setTimeout(r, 250));
    }
    expect(row?.approval).toMatchObject({ authorizationDetails: refund, bindingMessage: 'Refund 50 EUR? K7Q2' });
    expect(row?.approval?.approvedAt).toBeInstanceOf(Date);
    // The approval is covered by the tenant's audit hash chain: changing what the person approved breaks it.
    expect(await verifyAuditChain(h.db.models, t)).toMatchObject({ valid: true, problems: [] });
    await h.db.models.TokenAudit.updateOne(
      { tenantId: t, jti },
      { $set: { 'approval.bindingMessage': 'Refund 5000 EUR?' } },
    );
    expect((await verifyAuditChain(h.db.models, t)).valid).toBe(false);
    expect(cspViolations).toEqual([]);
  } finally {
    await context.close();
  }
});

it('a denied request: the agent gets access_denied, and no token', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const { page, cspViolations } = await openLedger(context);
    const started = await ask('Cancel? Q9');
    const item = page.locator('#pending-list > li');
    await item.waitFor({ timeout: 10_000 });
    await item.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(/request=denied/);
    await checkPage(page, 'ciba-denied');
    await expect(oidc.pollBackchannelAuthenticationGrant(rp, { ...started, interval: 0.5 })).rejects.toMatchObject({
      error: 'access_denied',
    });
    expect(cspViolations).toEqual([]);
  } finally {
    await context.close();
  }
});
