/**
 * A first `npm start`, as a new user meets it: the built entry in its own process group (first-run.ts), the banner
 * read from its output, and every credential and command the banner prints used exactly as printed:
 * - the admin console account, through the console's own sign-in in Chromium;
 * - the system admin client and the demo tenant's admin client, at the management API;
 * - the demo steps (the curl sign-in script, the token exchange, the audit read-back), run with bash;
 * - the demo user, at their ledger page in Chromium, which then shows the agent the exchange gave a token;
 * - the demo app's sign-out URL, which asks and then returns to the app with its state.
 * A clean first run prints the banner and nothing that looks like an error (no warning, no failed request, no
 * favicon 404 in the browser), and Ctrl-C stops every process cleanly. The MCP commands of the banner have their
 * own test (mcp-demo.e2e.test.ts).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { repoRoot } from '@idp/testing';
import { launchChromium, newProbedPage } from '../../src/clients/browser';
import { alive, bannerSteps, bannerValue, startFirstRun, type FirstRun } from '../../src/first-run';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

jest.setTimeout(240_000);

let run: FirstRun;
let browser: Browser;
/** Every response of 400 or more that a browser page of this file got: a clean run has none. */
const failedResponses: string[] = [];

beforeAll(async () => {
  await startAll([startFirstRun().then((v) => (run = v)), launchChromium().then((v) => (browser = v))]);
}, 200_000);

afterAll(async () => {
  await ifAssigned(browser)?.close();
  await ifAssigned(run)?.stop();
});

/** `label   id / secret` in the banner's table. */
function credentials(label: string): { id: string; secret: string } {
  const m = /^(\S+) \/ (\S.*)$/.exec(bannerValue(run.banner, label));
  if (!m) throw new Error(`"${label}" is not "id / secret": ${bannerValue(run.banner, label)}`);
  return { id: m[1]!, secret: m[2]! };
}

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.on('response', (res) => {
    if (res.status() >= 400) failedResponses.push(`${res.status()} ${res.url()}`);
  });
  return context;
}

async function clientCredentials(tokenEndpoint: string, who: { id: string; secret: string }): Promise<string> {
  const res = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(who.id)}:${encodeURIComponent(who.secret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: 'urn:idp:management' }),
  });
  const body = (await res.json()) as { access_token?: string };
  expect([res.status, typeof body.access_token]).toEqual([200, 'string']);
  return body.access_token!;
}

const issuer = () => bannerValue(run.banner, 'Issuer (demo tenant)');
const managementApi = () => bannerValue(run.banner, 'Management API');

it('the console account signs in through the console as printed', async () => {
  const m = /^(\S+)\s+\(tenant (\d+), (\S+) \/ (\S+)\)$/.exec(bannerValue(run.banner, 'Admin console'));
  expect(m).not.toBeNull();
  const [, url, tenant, username, password] = m!;
  const context = await newContext();
  const { page, cspViolations } = await newProbedPage(context);
  await page.goto(url!);
  await page.getByLabel('Tenant id').fill(tenant!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill(username!);
  await page.getByLabel('Password').fill(password!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 30_000 });
  expect(await page.getByText(/sign-in failed/i).count()).toBe(0);
  // A screen that reads the management API with the signed-in person's token.
  await page.getByRole('heading', { level: 1, name: 'Jobs' }).waitFor();
  expect(cspViolations).toEqual([]);
  await context.close();
});

it('the system admin client and the demo tenant admin client get management tokens that work', async () => {
  const system = credentials('System admin client');
  const systemTenant = /\(tenant (\d+),/.exec(bannerValue(run.banner, 'Admin console'))![1];
  const systemToken = await clientCredentials(`${run.baseUrl}/auth/${systemTenant}/oidc/token`, system);
  const tenants = await fetch(`${managementApi()}/tenants`, { headers: { authorization: `Bearer ${systemToken}` } });
  expect(tenants.status).toBe(200);
  expect(JSON.stringify(await tenants.json())).toContain('"demo"');

  const tenantAdmin = credentials('Demo tenant admin client');
  const tenantToken = await clientCredentials(`${issuer()}/oidc/token`, tenantAdmin);
  const tenantId = issuer().split('/').pop();
  const own = await fetch(`${managementApi()}/tenants/${tenantId}`, {
    headers: { authorization: `Bearer ${tenantToken}` },
  });
  expect(own.status).toBe(200);
});

it('the demo steps run as printed: sign-in script, token exchange, the audit row read back', async () => {
  const steps = bannerSteps(run.banner).slice(0, 3);
  expect(steps.map((s) => s.title)).toEqual([
    expect.stringMatching(/^Sign the user in/),
    expect.stringMatching(/^Exchange it/),
    expect.stringMatching(/^Read the audit row back/),
  ]);
  const sh = (script: string) =>
    promisify(execFile)('bash', ['-c', `set -euo pipefail\n${script}`], { cwd: repoRoot(), timeout: 60_000 });
  const exchange = await sh(`${steps[0]!.command}\n${steps[1]!.command}`);
  const issued = JSON.parse(exchange.stdout) as { access_token?: string; issued_token_type?: string };
  expect(issued.issued_token_type).toBe('urn:ietf:params:oauth:token-type:access_token');
  // The audit row is written asynchronously: the step says to run it again when "items" is empty.
  let items: unknown[] = [];
  for (let i = 0; i < 20 && items.length === 0; i++) {
    if (i) await new Promise((r) => setTimeout(r, 500));
    items = (JSON.parse((await sh(steps[2]!.command)).stdout) as { items: unknown[] }).items;
  }
  expect(items.length).toBeGreaterThan(0);
});

let ledger: Page;

it('the demo user signs in at the ledger page and sees the agent acting for them', async () => {
  const [url] = bannerValue(run.banner, 'Your agents (user ledger)').split(/\s+/);
  const user = /^(\S+) \/ (.+)$/.exec(bannerValue(run.banner, 'Demo user'))!;
  const context = await newContext();
  ({ page: ledger } = await newProbedPage(context));
  await ledger.goto(url!);
  await ledger.getByLabel('Username').fill(user[1]!);
  await ledger.getByLabel('Password').fill(user[2]!);
  await ledger.getByRole('button', { name: 'Sign in' }).click();
  await ledger.waitForURL(url!);
  expect(await ledger.getByRole('heading', { level: 1 }).textContent()).toBe('Agents acting for you');
  const nhe = bannerValue(run.banner, 'NHE').split(' ')[0];
  expect(await ledger.locator(`section[data-nhe="${nhe}"] li[data-jti]`).count()).toBeGreaterThan(0);
});

it("the demo app's sign-out URL asks, signs the user out and returns to the app with its state", async () => {
  const url = new URL(bannerValue(run.banner, 'Sign out (demo app)'));
  const back = url.searchParams.get('post_logout_redirect_uri')!;
  // The demo app itself is not running: its post-logout endpoint is answered here.
  await ledger
    .context()
    .route(`${new URL(back).origin}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'demo app: signed out' }),
    );
  await ledger.goto(url.href);
  await ledger.getByRole('button', { name: 'Sign out' }).click();
  await ledger.waitForURL((u) => u.href.startsWith(back));
  expect(new URL(ledger.url()).searchParams.get('state')).toBe(url.searchParams.get('state'));
  expect(new URL(ledger.url()).searchParams.get('logout')).toBeNull();
  // Signed out: the ledger asks for a sign-in again.
  await ledger.goto(bannerValue(run.banner, 'Your agents (user ledger)').split(/\s+/)[0]!);
  await ledger.getByLabel('Username').waitFor();
  await ledger.context().close();
});

/** Lines of the output outside the banner that look like a problem; the Node 20 runtime notice only where the banner explains it. */
function complaints(text: string): string[] {
  const explained = /Unsupported runtime" above is expected/.test(run.banner);
  return text
    .replace(run.banner, '')
    .split('\n')
    .filter((l) => /warn|error|fail|notice|deprecat|exception|MaxListeners|"level":[4-6]0/i.test(l))
    .filter((l) => !(explained && /^oidc-provider WARNING: Unsupported runtime\./.test(l)));
}

it('printed nothing that looks like an error, and the browser pages had no failed request', () => {
  expect(complaints(run.output())).toEqual([]);
  expect(failedResponses).toEqual([]);
});

it('Ctrl-C stops every process in order: exit 0, no error on the way, nothing left running', async () => {
  const before = run.output().length;
  const children = run.children();
  // The services, the sample APIs, the store and NATS.
  expect(children.length).toBeGreaterThanOrEqual(9);
  expect(await run.interrupt()).toBe(0);
  expect(children.filter(alive)).toEqual([]);
  const tail = run.output().slice(before);
  expect(tail).toContain('stopping every process');
  expect(complaints(tail)).toEqual([]);
});
