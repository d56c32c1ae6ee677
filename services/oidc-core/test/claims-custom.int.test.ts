/**
 * custom_claims at UserInfo time: the identity-provider mapping stored on the user, replaced by the client's
 * customizeUserInfoClaims script (run in the QuickJS sandbox); filtered out without the scope; never in an ID
 * token; a script that loops, exhausts memory, reaches for the host, throws or returns a non-object gives a clean
 * UserInfo response without custom_claims, within the time limit, and a metered error.
 */
import { createClient } from '@idp/testing';
import { customClaimsSandbox } from '../src/domain/custom-claims-sandbox';
import { PEPPER, startPagesApp, type PagesApp } from './pages-app';
import { authCodeFlow, jwtPayload, userinfo, type TestClient } from './scopes-harness';

const REDIRECT = 'http://127.0.0.1:8403/callback';
let app: PagesApp;
const clients: Record<string, TestClient> = {};

const SCRIPTS: Record<string, string> = {
  mapper:
    'return { dept: input.user.custom_claims.dept, mail: input.user.claims.email, client: input.context.clientId, tenant: input.context.tenantId };',
  loop: 'while (true) {}',
  memory: 'const a = []; while (true) a.push(new Array(100000).fill("xxxxxxxx"));',
  escape: 'return { pid: process.pid, fs: require("fs") };',
  throws: 'throw new Error("boom");',
  string: 'return "not an object";',
  array: 'return ["a"];',
};

beforeAll(async () => {
  app = await startPagesApp('customclaims');
  const { models } = app.db;
  const t = app.tenant.tenantId;
  await models.User.updateOne(
    { tenantId: t, _id: app.tenant.user.id },
    { $set: { customClaims: { dept: 'ops', badge: 42 } } },
  );
  for (const name of ['plain', ...Object.keys(SCRIPTS)]) {
    const c = await createClient(models, PEPPER, {
      tenantId: t,
      clientId: `app-${name}`,
      name,
      grantTypes: ['authorization_code'],
      redirectUris: [REDIRECT],
      firstParty: true,
    });
    if (SCRIPTS[name])
      await models.Client.updateOne(
        { tenantId: t, clientId: c.clientId },
        { $set: { 'config.customizeUserInfoClaims': SCRIPTS[name] } },
      );
    clients[name] = { ...c, redirectUri: REDIRECT };
  }
}, 60_000);

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
  await customClaimsSandbox().close();
});

async function tokensFor(name: string, scope = 'openid email custom_claims') {
  const res = await authCodeFlow(app, clients[name]!, { scope });
  expect(res.status).toBe(200);
  return res.body;
}

async function errorCount(reason: string): Promise<number> {
  const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
  const m = new RegExp(`^idp_custom_claims_script_errors_total\\{[^}]*reason="${reason}"[^}]*\\} (\\d+)`, 'm').exec(
    text,
  );
  return m ? Number(m[1]) : 0;
}

it('releases the identity-provider mapping as custom_claims in UserInfo, never in the ID token', async () => {
  const tokens = await tokensFor('plain');
  expect(jwtPayload(tokens.id_token)).not.toHaveProperty('custom_claims');
  const info = await userinfo(app, tokens.access_token!);
  expect(info.body.custom_claims).toEqual({ dept: 'ops', badge: 42 });
});

it('filters custom_claims out without the custom_claims scope, even for a client with a script', async () => {
  for (const name of ['plain', 'mapper']) {
    const info = await userinfo(app, (await tokensFor(name, 'openid email')).access_token!);
    expect(info.status).toBe(200);
    expect(info.body).not.toHaveProperty('custom_claims');
    expect(info.body.email).toBe('alice@example.com');
  }
});

it('replaces the mapped values with the return value of the client script', async () => {
  const info = await userinfo(app, (await tokensFor('mapper')).access_token!);
  expect(info.body.custom_claims).toEqual({
    dept: 'ops',
    mail: 'alice@example.com',
    client: 'app-mapper',
    tenant: app.tenant.tenantId,
  });
});

it.each([
  ['loop', 'timeout'],
  ['memory', undefined],
  ['escape', 'threw'],
  ['throws', 'threw'],
  ['string', 'invalid_return'],
  ['array', 'invalid_return'],
])('a %s script gives UserInfo without custom_claims, quickly, and a metered error', async (name, reason) => {
  const tokens = await tokensFor(name);
  const before = reason ? await errorCount(reason) : 0;
  const started = performance.now();
  const info = await userinfo(app, tokens.access_token!);
  const ms = performance.now() - started;
  expect(info.status).toBe(200);
  expect(info.body).not.toHaveProperty('custom_claims');
  expect(info.body.email).toBe('alice@example.com');
  expect(info.body.sub).toBe(app.tenant.user.id);
  // 50 ms of script time, the 250 ms hard-kill grace at most, plus the request itself on a loaded shared machine.
  expect(ms).toBeLessThan(1500);
  if (reason) expect(await errorCount(reason)).toBe(before + 1);
});
