/**
 * The person's linked identities on their account pages, over the real app (oidc-core on a loopback port, the
 * tenant's normal sign-in by form posts, the real store):
 *
 * - without a session the page sends the browser through the tenant's sign-in with the pages' built-in client and
 *   comes back to this page; it lists exactly the person's links of this tenant (provider display name, the alias of
 *   a deleted provider, how and when linked, last sign-in), none of another person's or another tenant's;
 * - Remove deletes the link (and its entry in the account's federated identities) and keeps the session;
 * - the last link of an account without a usable password (the unusable hash of a just-in-time account) is kept, with
 *   the message that says why, also when two removals race; an account with a password may remove its last link;
 * - a form naming another person's link, another tenant's link or no link is refused (404) and removes nothing;
 * - the forms refuse a missing, wrong or other session's CSRF token, another Origin, a cross-site form and no session.
 *
 * The links are written straight into the store (as upstream sign-in or an administrator writes them); upstream
 * sign-in itself is tested against real identity providers elsewhere. The password-less account signs in with a
 * password that is then replaced by the unusable hash: the session it made stays, as a just-in-time account's does,
 * and the rule reads only the stored hash.
 */
import { DUMMY_PASSWORD_HASH, hashPassword } from '@idp/tokens';
import { ONLY_WAY_IN } from '../src/account/linked-identities';
import { Browser, startPagesApp, type PagesApp } from './pages-app';

const BOB_PASSWORD = 'bob signs in with his own password';
const CAROL_PASSWORD = 'carol will lose her password soon';

let app: PagesApp;
let T: number;
const ids = {} as Record<'alice' | 'bob' | 'carol', string>;
/** Link ids by name. */
const links = {} as Record<
  'aliceCorp' | 'alicePartner' | 'aliceOld' | 'bobCorp' | 'otherTenant' | 'carolCorp' | 'carolPartner',
  string
>;
const browsers = {} as Record<'alice' | 'bob' | 'carol', Browser>;

const page = () => `/auth/${T}/account/identities`;
const removeAction = (linkId: string) => `/auth/${T}/account/identities/${linkId}/remove`;
const escapedMessage = ONLY_WAY_IN.replace(/'/g, '&#39;');

/** Opens the page, signing in through the tenant's login page when the browser has no session. */
async function openPage(
  browser: Browser,
  login?: { username: string; password: string },
): Promise<{ status: number; text: string; headers: Headers; trail: string[] }> {
  const trail: string[] = [];
  let res = await browser.go(page());
  for (let i = 0; i < 10 && res.location; i++) {
    const url = new URL(res.location, app.baseUrl);
    trail.push(url.pathname);
    if (login && /\/interaction\/[^/]+$/.test(url.pathname)) {
      res = await browser.go(`${url.pathname}/login`, { form: login });
      continue;
    }
    res = await browser.go(url.toString());
  }
  return { ...res, trail };
}

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
/** The browser's cookies as a Cookie header (to send a request the jar's go() cannot: another Origin). */
const cookieHeader = (b: Browser) =>
  [...(b as unknown as { cookies: Map<string, string> }).cookies].map(([k, v]) => `${k}=${v}`).join('; ');
const linkExists = async (id: string) => (await app.db.models.UpstreamLink.exists({ _id: id })) !== null;

beforeAll(async () => {
  app = await startPagesApp('linked-identities');
  T = app.tenant.tenantId;
  const { models } = app.db;
  ids.alice = app.tenant.user.id;
  const bob = await models.User.create({
    tenantId: T,
    username: 'bob',
    passwordHash: await hashPassword(BOB_PASSWORD),
  });
  const carol = await models.User.create({
    tenantId: T,
    username: 'carol',
    passwordHash: await hashPassword(CAROL_PASSWORD),
  });
  ids.bob = String(bob._id);
  ids.carol = String(carol._id);
  await models.UpstreamProvider.create([
    { tenantId: T, alias: 'corp', displayName: 'Corporate SSO', type: 'oidc' },
    { tenantId: T, alias: 'partner', displayName: 'Partner SAML', type: 'saml' },
    // The same alias in another tenant, with another name: never this tenant's.
    { tenantId: T + 1, alias: 'old-idp', displayName: 'Other Tenant IdP', type: 'oidc' },
  ]);
  const link = async (tenantId: number, userId: string, provider: string, subject: string, extra = {}) =>
    String(
      (
        await models.UpstreamLink.create({
          tenantId,
          userId,
          provider,
          subject,
          issuer: `https://${provider}.example`,
          linkedBy: 'jit',
          ...extra,
        })
      )._id,
    );
  links.aliceCorp = await link(T, ids.alice, 'corp', 'alice-at-corp', {
    linkedBy: 'password',
    lastSignInAt: new Date('2026-03-04T05:06:07Z'),
  });
  links.alicePartner = await link(T, ids.alice, 'partner', 'alice-at-partner', { linkedBy: 'admin' });
  // A provider deleted since (links normally go with it; one left behind shows its alias).
  links.aliceOld = await link(T, ids.alice, 'old-idp', 'alice-at-old', { linkedBy: 'verified_email' });
  links.bobCorp = await link(T, ids.bob, 'corp', 'bob-at-corp');
  // Another tenant's row naming alice's id (a forged or colliding user id): not hers.
  links.otherTenant = await link(T + 1, ids.alice, 'corp', 'someone-in-another-tenant');
  links.carolCorp = await link(T, ids.carol, 'corp', 'carol-at-corp');
  links.carolPartner = await link(T, ids.carol, 'partner', 'carol-at-partner');
  await models.User.updateOne(
    { tenantId: T, _id: ids.alice },
    {
      $set: {
        federatedIdentities: [
          { provider: 'corp', issuer: 'https://corp.example', subject: 'alice-at-corp' },
          { provider: 'partner', issuer: 'https://partner.example', subject: 'alice-at-partner' },
        ],
      },
    },
  );

  browsers.bob = new Browser(app.baseUrl);
  expect((await openPage(browsers.bob, { username: 'bob', password: BOB_PASSWORD })).status).toBe(200);
  browsers.carol = new Browser(app.baseUrl);
  expect((await openPage(browsers.carol, { username: 'carol', password: CAROL_PASSWORD })).status).toBe(200);
  // Carol's account becomes one without a usable password (as a just-in-time account is); her session stays.
  await models.User.updateOne({ tenantId: T, _id: ids.carol }, { $set: { passwordHash: DUMMY_PASSWORD_HASH } });
}, 60_000);

afterAll(async () => {
  await (app as PagesApp | undefined)?.stop();
});

describe('the page', () => {
  it("signs in through the tenant's sign-in, comes back here and lists exactly the person's links", async () => {
    browsers.alice = new Browser(app.baseUrl);
    const first = await browsers.alice.go(page());
    expect(first.status).toBe(303);
    const authorize = new URL(first.location!, app.baseUrl);
    expect([authorize.pathname, authorize.searchParams.get('client_id')]).toEqual([
      `/auth/${T}/authorize`,
      'idp:account',
    ]);
    const res = await openPage(browsers.alice, { username: 'alice', password: app.tenant.user.password });
    expect(res.status).toBe(200);
    // The callback sends the browser back to this page, not to the agents page.
    expect(res.trail.at(-1)).toBe(page());
    const html = res.text;
    expect(html).toContain('<h1>Linked identities</h1>');
    const sections = [...html.matchAll(/<section [^>]*data-link="([0-9a-f]{24})"/g)].map((m) => m[1]);
    expect(sections).toEqual([links.aliceCorp, links.alicePartner, links.aliceOld]);
    const section = (id: string) => new RegExp(`data-link="${id}"[^]*?</section>`).exec(html)?.[0] ?? '';
    const corp = section(links.aliceCorp);
    expect(corp).toContain('<h2 id="link-0-name">Corporate SSO</h2>');
    expect(corp).toContain('when you proved your password here');
    expect(corp).toContain('Last sign-in: <time datetime="2026-03-04T05:06:07.000Z">2026-03-04 05:06:07 UTC</time>');
    expect(corp).toContain(`action="/auth/${T}/account/identities/${links.aliceCorp}/remove"`);
    const partner = section(links.alicePartner);
    expect(partner).toContain('Partner SAML');
    expect(partner).toContain('by an administrator');
    expect(partner).toMatch(/Last sign-in: <span class="muted">never<\/span>/);
    // A deleted provider shows its alias, not another tenant's provider of the same alias.
    const old = section(links.aliceOld);
    expect(old).toContain('<h2 id="link-2-name">old-idp</h2>');
    expect(old).toContain('removed by an administrator');
    expect(html).not.toContain('Other Tenant IdP');
    // Nobody else's links: bob's, carol's, another tenant's row naming alice's id.
    for (const other of [links.bobCorp, links.carolCorp, links.carolPartner, links.otherTenant])
      expect(html).not.toContain(other);
    expect(html).not.toMatch(/bob-at-corp|carol-at|someone-in-another-tenant/);
    // The provider's page rules: CSP without script, forms to this origin only, no framing, no caching.
    expect(res.headers.get('content-security-policy')).toMatch(/form-action 'self'/);
    expect(res.headers.get('content-security-policy')).not.toMatch(/unsafe-inline|nonce-/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(html).not.toMatch(/<script/);
  });

  it("bob's page lists his link only", async () => {
    const html = (await openPage(browsers.bob)).text;
    expect([...html.matchAll(/data-link="([0-9a-f]{24})"/g)].map((m) => m[1])).toEqual([links.bobCorp]);
  });
});

describe('forms refuse requests that are not the person’s own', () => {
  it('a missing, wrong or other session’s CSRF token, another Origin, a cross-site form and no session: 403, nothing removed', async () => {
    const alice = browsers.alice;
    const csrf = csrfOf((await openPage(alice)).text);
    const bobCsrf = csrfOf((await openPage(browsers.bob)).text);
    expect(csrf).not.toBe('');
    expect(bobCsrf).not.toBe(csrf);
    const action = removeAction(links.alicePartner);
    for (const form of [{}, { csrf: 'x'.repeat(43) }, { csrf: bobCsrf }] as Array<Record<string, string>>) {
      const res = await alice.go(action, { form });
      expect([res.status, res.text]).toEqual([403, expect.stringContaining('access_denied')]);
    }
    const foreign = await fetch(`${app.baseUrl}${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
        cookie: cookieHeader(alice),
      },
      body: new URLSearchParams({ csrf }),
    });
    expect(foreign.status).toBe(403);
    // Under the pages' no-referrer policy a browser sends Origin: null; Fetch Metadata still names a cross-site form.
    const crossSite = await fetch(`${app.baseUrl}${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'null',
        'sec-fetch-site': 'cross-site',
        cookie: cookieHeader(alice),
      },
      body: new URLSearchParams({ csrf }),
    });
    expect(crossSite.status).toBe(403);
    expect((await new Browser(app.baseUrl).go(action, { form: { csrf } })).status).toBe(403);
    expect(await linkExists(links.alicePartner)).toBe(true);
  });

  it("a form naming another person's link, another tenant's link or no link: 404, nothing removed", async () => {
    const csrf = csrfOf((await openPage(browsers.alice)).text);
    for (const id of [links.bobCorp, links.carolCorp, links.otherTenant, '0'.repeat(24), 'not-an-id']) {
      const res = await browsers.alice.go(removeAction(id), { form: { csrf } });
      expect([res.status, res.text]).toEqual([404, expect.stringContaining('not_found')]);
    }
    for (const id of [links.bobCorp, links.carolCorp, links.otherTenant]) expect(await linkExists(id)).toBe(true);
  });
});

describe('removing', () => {
  it('removes the link and its federated identity entry; the session stays', async () => {
    const csrf = csrfOf((await openPage(browsers.alice)).text);
    const res = await browsers.alice.go(removeAction(links.alicePartner), { form: { csrf } });
    expect([res.status, res.location]).toEqual([303, `/auth/${T}/account/identities?done=removed&provider=partner`]);
    expect(await linkExists(links.alicePartner)).toBe(false);
    const alice = await app.db.models.User.findOne({ tenantId: T, _id: ids.alice }).lean();
    expect(alice?.federatedIdentities).toEqual([
      { provider: 'corp', issuer: 'https://corp.example', subject: 'alice-at-corp' },
    ]);
    // Still signed in: the page answers, without a new sign-in, and no longer lists it.
    const after = await browsers.alice.go(res.location!);
    expect(after.status).toBe(200);
    expect(after.text).toMatch(/<p role="status" id="done">Partner SAML: the link was removed/);
    expect(after.text).not.toContain(links.alicePartner);
    expect(after.text).toContain(links.aliceCorp);
  });

  it('an account without a usable password keeps its last link, with the message; it may remove the others', async () => {
    let csrf = csrfOf((await openPage(browsers.carol)).text);
    const first = await browsers.carol.go(removeAction(links.carolPartner), { form: { csrf } });
    expect(first.status).toBe(303);
    expect(await linkExists(links.carolPartner)).toBe(false);
    csrf = csrfOf((await openPage(browsers.carol)).text);
    const last = await browsers.carol.go(removeAction(links.carolCorp), { form: { csrf } });
    expect(last.status).toBe(409);
    expect(last.text).toContain(`<p class="error" role="alert" id="refused">${escapedMessage}</p>`);
    // The page around the message still lists the link.
    expect(last.text).toContain(`data-link="${links.carolCorp}"`);
    expect(await linkExists(links.carolCorp)).toBe(true);
  });

  it('two removals of the last two links at the same moment leave at least one', async () => {
    const extra = String(
      (
        await app.db.models.UpstreamLink.create({
          tenantId: T,
          userId: ids.carol,
          provider: 'partner',
          subject: 'carol-at-partner-again',
          issuer: 'https://partner.example',
          linkedBy: 'admin',
        })
      )._id,
    );
    const csrf = csrfOf((await openPage(browsers.carol)).text);
    const answers = await Promise.all(
      [links.carolCorp, extra].map((id) => browsers.carol.go(removeAction(id), { form: { csrf } })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.every((s) => s === 303 || s === 409)).toBe(true);
    expect(statuses).toContain(409);
    expect(await app.db.models.UpstreamLink.countDocuments({ tenantId: T, userId: ids.carol })).toBeGreaterThanOrEqual(
      1,
    );
  });

  it('an account with a password may remove its last link', async () => {
    for (const id of [links.aliceOld, links.aliceCorp]) {
      const csrf = csrfOf((await openPage(browsers.alice)).text);
      expect((await browsers.alice.go(removeAction(id), { form: { csrf } })).status).toBe(303);
    }
    expect(await app.db.models.UpstreamLink.countDocuments({ tenantId: T, userId: ids.alice })).toBe(0);
    // Another tenant's row naming her id is untouched.
    expect(await linkExists(links.otherTenant)).toBe(true);
    const html = (await openPage(browsers.alice)).text;
    expect(html).toContain('id="no-links"');
  });
});
