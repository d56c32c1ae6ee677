/**
 * MCP hosts as they ship: the official @modelcontextprotocol/sdk client (1.32, unmodified: its auth() given only the
 * MCP server's URL, with an OAuthClientProvider) registering itself by Dynamic Client Registration with the metadata
 * hosts in the field send, end to end to a tool call on the sample MCP server, the user's step in Chromium:
 * - loopback http redirect URIs without application_type (recorded as a native client, RFC 8252 sections 7.3, 8.3);
 * - no token_endpoint_auth_method, or the SDK example's client_secret_post (replaced by none in the registration
 *   answer, RFC 7591 section 3.2.1; the SDK then uses none), with and without application_type native;
 * - a user with no role on the MCP server: access_denied with an error_description that says why;
 * - the per-address registration limit through the dev router (the trusted hop) with forged X-Forwarded-For headers.
 */
import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Browser } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { launchChromium } from '../../src/clients/browser';
import {
  connectWithBrowser,
  HostOAuthProvider,
  startRedirectReceiver,
  type Exchange,
  type RedirectReceiver,
} from '../../src/mcp/mcp-client';
import { MCP_SCOPE, startMcpWorld, type McpWorld } from './helpers';
import { ifAssigned } from '../../src/if-assigned';

let w: McpWorld;
let browser: Browser;
let redirect: RedirectReceiver;
let user: { username: string; password: string };

beforeAll(async () => {
  w = await startMcpWorld('stock-mcp-hosts');
  browser = await launchChromium();
  redirect = await startRedirectReceiver();
  user = { username: w.h.tenant.user.username, password: w.h.tenant.user.password };
}, 120_000);

afterAll(async () => {
  await ifAssigned(redirect)?.close();
  await ifAssigned(browser)?.close();
  await ifAssigned(w)?.stop();
});

async function whoami(client: Client): Promise<{ sub: string; client_id: string; scope: string; delegated: boolean }> {
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  expect(result.isError).toBeFalsy();
  return JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
}

/** The metadata of the SDK's own example client (examples/client/simpleOAuthClient), on our loopback receiver. */
const sdkExample = (name: string): OAuthClientMetadata => ({
  client_name: name,
  redirect_uris: [redirect.redirectUrl],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
});

test.each([
  ['no token_endpoint_auth_method, no application_type', {}],
  ['no token_endpoint_auth_method, application_type native', { application_type: 'native' }],
  ['client_secret_post (the SDK example), no application_type', { token_endpoint_auth_method: 'client_secret_post' }],
  [
    'client_secret_post, application_type native',
    { token_endpoint_auth_method: 'client_secret_post', application_type: 'native' },
  ],
  ['none, no application_type', { token_endpoint_auth_method: 'none' }],
])(
  'the SDK client registers with %s and reaches a tool call with a token for the MCP server',
  async (what, extra) => {
    const exchanges: Exchange[] = [];
    const provider = new HostOAuthProvider(redirect.redirectUrl, {
      ...sdkExample(`Host ${what}`),
      ...extra,
    } as OAuthClientMetadata);
    const { client } = await connectWithBrowser({ serverUrl: w.mcp.url, provider, exchanges, browser, redirect, user });
    try {
      expect(exchanges.find((e) => e.method === 'POST' && e.url === `${w.issuer}/reg`)?.status).toBe(201);
      // What the registration answer said, as the SDK stored it: a public client, no secret (the SDK keeps no
      // application_type); what the provider recorded: a native client.
      const info = provider.clientInformation() as Record<string, unknown>;
      expect({ method: info.token_endpoint_auth_method, secret: info.client_secret }).toEqual({
        method: 'none',
        secret: undefined,
      });
      const record = await w.h.db.models.Client.findOne({
        tenantId: w.h.tenant.tenantId,
        clientId: String(info.client_id),
      }).lean();
      expect({
        method: record?.tokenEndpointAuthMethod,
        type: JSON.parse(record?.registeredMetadata ?? '{}').application_type,
      }).toEqual({ method: 'none', type: 'native' });
      const claims = decodeJwt(provider.tokens()!.access_token);
      expect(claims).toMatchObject({
        aud: w.mcp.url,
        sub: w.h.tenant.user.id,
        client_id: info.client_id,
        iss: w.issuer,
      });
      expect(await whoami(client)).toMatchObject({
        sub: w.h.tenant.user.id,
        client_id: info.client_id,
        scope: MCP_SCOPE,
        delegated: false,
      });
      const stored = await w.manage('GET', `/clients/${String(info.client_id)}`);
      expect(stored.body).toMatchObject({ registration: 'dynamic', firstParty: false });
    } finally {
      await client.close();
    }
  },
  60_000,
);

test('a user with no role on the MCP server ends sign-in with access_denied and an error_description that says why', async () => {
  const password = randomBytes(12).toString('base64url');
  const created = await w.manage<{ username: string }>('POST', '/users', {
    username: `no-role-${randomBytes(4).toString('hex')}`,
    password,
  });
  expect(created.status).toBe(201);
  const provider = new HostOAuthProvider(redirect.redirectUrl, {
    ...sdkExample('Host for a user without a role'),
    token_endpoint_auth_method: 'client_secret_post',
  });
  const err = await connectWithBrowser({
    serverUrl: w.mcp.url,
    provider,
    exchanges: [],
    browser,
    redirect,
    user: { username: created.body!.username, password },
  }).then(
    () => undefined,
    (e: Error & { oauthError?: string; step?: { returned: URL } }) => e,
  );
  expect(err?.oauthError).toBe('access_denied');
  expect(err!.step!.returned.searchParams.get('error_description')).toBe(
    `the user holds no role that grants a scope of ${w.mcp.url} (an administrator gives an API's scopes to users through roles)`,
  );
  expect(provider.tokens()).toBeUndefined();
}, 60_000);

test('the registration limit per address counts the address the dev router (the trusted hop) saw, whatever X-Forwarded-For the client forges', async () => {
  expect((await w.manage('PATCH', '', { settings: { registration: { rateLimit: { maxPerWindow: 3 } } } })).status).toBe(
    200,
  );
  // The change reaches oidc-core as a configuration invalidation over core NATS (asynchronous).
  await new Promise((r) => setTimeout(r, 1000));
  try {
    const statuses: number[] = [];
    // Registrations of the tests above count too (same address): a 429 must come within four attempts whatever the
    // order; with the client's own X-Forwarded-For trusted, every forged address would have a fresh allowance.
    for (let n = 1; n <= 4 && !statuses.includes(429); n++) {
      const res = await fetch(`${w.issuer}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${n}` },
        body: JSON.stringify({
          client_name: `forger ${n}`,
          redirect_uris: ['http://127.0.0.1/callback'],
          token_endpoint_auth_method: 'none',
        }),
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(await res.json()).toMatchObject({ error: 'temporarily_unavailable' });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 201).length).toBeLessThanOrEqual(3);
  } finally {
    expect(
      (await w.manage('PATCH', '', { settings: { registration: { rateLimit: { maxPerWindow: 10 } } } })).status,
    ).toBe(200);
  }
}, 30_000);
